/**
 * GitLab's `CurrentUser.activity` (GitLab 17.10, an experiment there): the activity streams of the
 * current user, as a `UserActivityStream` whose `followedUsersActivity(target:)` is a Relay
 * connection of events, filtered by GitLab's dashboard tabs (GitLab's `EventTarget` enum, app/models/event_filter.rb).
 */
import { ArgsType, Field, ObjectType, registerEnumType } from 'type-graphql';
import { type EventKind, tabKinds } from '../../domain/activity-tabs.js';
import { EventConnectionArgs } from './connection.js';

export type EventTargetValue =
  'all' | 'push' | 'merged' | 'issue' | 'comments' | 'team' | 'wiki' | 'designs' | 'epic';

export const EventTarget: Record<string, EventTargetValue> = {
  ALL: 'all',
  PUSH: 'push',
  MERGED: 'merged',
  ISSUE: 'issue',
  COMMENTS: 'comments',
  TEAM: 'team',
  WIKI: 'wiki',
  DESIGNS: 'designs',
  EPIC: 'epic',
};
// GitLab names this enum EventTarget; here that name is the union of `Event.target`'s types (older
// than this field), so the enum takes another. Clients writing `target: PUSH` see no difference.
registerEnumType(EventTarget, {
  name: 'EventTargetFilter',
  description: "Event target: GitLab's dashboard activity tabs (`followedUsersActivity`).",
  valuesConfig: {
    ALL: { description: 'Everything.' },
    PUSH: { description: 'Push events.' },
    MERGED: { description: 'Merge events.' },
    ISSUE: { description: 'Issue events.' },
    COMMENTS: { description: 'Comment events.' },
    TEAM: { description: 'Team events.' },
    WIKI: { description: 'Wiki events (pulsegate has none).' },
    DESIGNS: { description: 'Design events (pulsegate has none).' },
    EPIC: { description: 'Epic events (pulsegate has none).' },
  },
});

/** The event kinds a target lists: null for ALL; none for what pulsegate does not record. */
export function targetKinds(target: EventTargetValue): readonly EventKind[] | null {
  switch (target) {
    case 'wiki':
    case 'designs':
    case 'epic':
      return [];
    default:
      return tabKinds(target);
  }
}

@ObjectType('UserActivityStream', { description: 'Activity streams associated with a user.' })
export class UserActivityStreamType {
  /** The user whose streams these are (always the current user). */
  userId!: number;
}

@ArgsType()
export class FollowedUsersActivityArgs extends EventConnectionArgs {
  @Field(() => EventTarget, {
    nullable: true,
    defaultValue: 'all',
    description: 'Event target.',
  })
  target?: EventTargetValue | null;
}
