/**
 * GraphQL enums generated from the domain vocabulary, so REST and GraphQL cannot drift. GraphQL
 * names are the upper-cased filter keys (`CREATED`, `MERGE_REQUEST`); the values resolvers see are
 * the domain's (`created`, `MergeRequest`), which is what services take.
 */
import { registerEnumType } from 'type-graphql';
import {
  ACTIONS,
  PUSH_ACTIONS,
  REF_TYPES,
  TARGET_TYPES,
  VISIBILITIES,
  type Action,
  type PushAction,
  type RefType,
  type TargetClass,
  type Visibility,
} from '../../domain/vocabulary.js';

function upper<T extends string>(values: readonly T[]): Record<string, T> {
  return Object.fromEntries(values.map((v) => [v.toUpperCase(), v]));
}

export const EventAction: Record<string, Action> = upper(ACTIONS);
registerEnumType(EventAction, {
  name: 'EventAction',
  description: 'What happened. Values are the REST `action` filter keys, upper-cased.',
});

/** `MERGE_REQUEST` ↔ `MergeRequest`, `WIKI` ↔ `WikiPage::Meta`, …: filter key ↔ stored class. */
export const EventTargetType: Record<string, TargetClass> = Object.fromEntries(
  Object.entries(TARGET_TYPES).map(([key, cls]) => [key.toUpperCase(), cls]),
);
registerEnumType(EventTargetType, {
  name: 'EventTargetType',
  description:
    'The kind of object an event is about. Values are the REST `target_type` filter keys, upper-cased.',
});

export const SortOrder: Record<string, 'asc' | 'desc'> = { ASC: 'asc', DESC: 'desc' };
registerEnumType(SortOrder, {
  name: 'SortOrder',
  description: 'Order by event id: DESC (newest first, the default) or ASC.',
});

export type EventScopeValue = 'authored' | 'all' | 'starred' | 'followed';
export const EventScope: Record<string, EventScopeValue> = {
  AUTHORED: 'authored',
  ALL: 'all',
  STARRED: 'starred',
  FOLLOWED: 'followed',
};
registerEnumType(EventScope, {
  name: 'EventScope',
  description:
    "AUTHORED: the viewer's own events (REST /events). ALL: events by anyone in the viewer's projects (REST scope=all). STARRED: events in the projects the viewer starred (REST scope=starred). FOLLOWED: events by the users the viewer follows (REST scope=followed).",
});

export const PushActionEnum: Record<string, PushAction> = upper(PUSH_ACTIONS);
registerEnumType(PushActionEnum, { name: 'PushAction' });

export const RefTypeEnum: Record<string, RefType> = upper(REF_TYPES);
registerEnumType(RefTypeEnum, { name: 'RefType' });

export const VisibilityEnum: Record<string, Visibility> = upper(VISIBILITIES);
registerEnumType(VisibilityEnum, { name: 'VisibilityLevel' });
