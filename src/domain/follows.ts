/** GitLab's rules for following users (Users::UserFollowUser, User#follow). */
import { UnprocessableError } from './errors.js';

/** GitLab 15.5 and later: a user follows at most this many users. */
export const MAX_FOLLOWED_USERS = 300;

/**
 * Following one more user past the limit. GitLab's REST answer is a 400 with this message (the
 * model's validation error); GraphQL reports it in a mutation's errors.
 */
export class FollowLimitError extends UnprocessableError {
  constructor() {
    super(
      `You can't follow more than ${MAX_FOLLOWED_USERS} users. To follow more users, unfollow some others.`,
    );
  }
}

/** Whether a follow may be attempted at all: nobody follows themselves (GitLab: not modified). */
export function mayFollow(followerId: number, followeeId: number): boolean {
  return followerId !== followeeId;
}
