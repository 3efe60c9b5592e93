/**
 * GitLab's form of the followed feed: `currentUser { activity { followedUsersActivity(target:) } }`,
 * the same listing as `events(scope: FOLLOWED)` and REST `scope=followed`.
 */
import { Args, Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import { ENDPOINT_SCOPES } from '../../domain/scopes.js';
import type { GraphQLContext } from '../context.js';
import { eventConnection, toEventFilter } from '../connection.js';
import {
  FollowedUsersActivityArgs,
  UserActivityStreamType,
  targetKinds,
} from '../types/activity.js';
import { EventConnectionType } from '../types/connection.js';
import { UserType } from '../types/user.js';

@Resolver(() => UserType)
export class UserActivityResolver {
  @FieldResolver(() => UserActivityStreamType, {
    nullable: true,
    description:
      "The user's activity streams, as GitLab's `CurrentUser.activity`: on the current user only (null on any other user).",
  })
  activity(@Root() user: UserType, @Ctx() ctx: GraphQLContext): UserActivityStreamType | null {
    if (!ctx.viewer || ctx.viewer.userId !== user.databaseId) return null;
    return { userId: user.databaseId };
  }
}

@Resolver(() => UserActivityStreamType)
export class UserActivityStreamResolver {
  @FieldResolver(() => EventConnectionType, {
    nullable: true,
    description:
      'Activity from users followed by the current user, in projects they can read (REST `/events?scope=followed`); `filter` narrows it further.',
  })
  async followedUsersActivity(
    @Root() _stream: UserActivityStreamType,
    @Args(() => FollowedUsersActivityArgs) args: FollowedUsersActivityArgs,
    @Ctx() ctx: GraphQLContext,
  ) {
    ctx.authorize(ENDPOINT_SCOPES.user);
    const filter = toEventFilter(args.filter);
    const kinds = targetKinds(args.target ?? 'all');
    if (kinds) filter.kinds = kinds;
    return eventConnection(ctx, { kind: 'viewer', scope: 'followed' }, filter, args);
  }
}
