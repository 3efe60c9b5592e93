/** Relay connection types for events, and the arguments every event connection takes. */
import { ArgsType, Field, InputType, Int, ObjectType } from 'type-graphql';
import type { Action, TargetClass } from '../../domain/vocabulary.js';
import type { WindowListing } from '../../services/activity/activity.js';
import {
  EventAction,
  EventScope,
  EventTargetType,
  SortOrder,
  type EventScopeValue,
} from './enums.js';
import { EventType } from './event.js';
import { DateScalar } from './scalars.js';

@ObjectType('PageInfo', { simpleResolvers: true })
export class PageInfoType {
  // hasNextPage / hasPreviousPage are resolved in resolvers/connection.ts (one may need a query).
  @Field(() => String, { nullable: true }) startCursor!: string | null;
  @Field(() => String, { nullable: true }) endCursor!: string | null;

  hasNext!: boolean | (() => Promise<boolean>);
  hasPrevious!: boolean | (() => Promise<boolean>);
}

@ObjectType('EventEdge', { simpleResolvers: true })
export class EventEdgeType {
  @Field(() => String) cursor!: string;
  @Field(() => EventType) node!: EventType;
}

@ObjectType('EventConnection', { simpleResolvers: true })
export class EventConnectionType {
  @Field(() => [EventEdgeType]) edges!: EventEdgeType[];
  @Field(() => [EventType]) nodes!: EventType[];
  @Field(() => PageInfoType) pageInfo!: PageInfoType;
  // totalCount is resolved lazily (resolvers/connection.ts): counting costs a query.

  /** The listing behind this page (counted only if a client asks for totalCount). */
  listing!: WindowListing;
}

@InputType('EventFilter', {
  description: 'The REST filter parameters; bad values are rejected exactly as REST rejects them.',
})
export class EventFilterInput {
  @Field(() => EventAction, { nullable: true })
  action?: Action | null;

  @Field(() => EventTargetType, { nullable: true })
  targetType?: TargetClass | null;

  @Field(() => DateScalar, {
    nullable: true,
    description: 'Only events created before this day (the day itself excluded), as REST `before`.',
  })
  before?: number | null;

  @Field(() => DateScalar, {
    nullable: true,
    description: 'Only events created after this day (the day itself excluded), as REST `after`.',
  })
  after?: number | null;

  @Field(() => SortOrder, { nullable: true, description: 'DESC (default) or ASC, by id.' })
  sort?: 'asc' | 'desc' | null;
}

@ArgsType()
export class EventConnectionArgs {
  @Field(() => EventFilterInput, { nullable: true })
  filter?: EventFilterInput | null;

  @Field(() => Int, {
    nullable: true,
    description: 'Page size from the start, 1..100 (default 20).',
  })
  first?: number | null;

  @Field(() => String, { nullable: true, description: 'Cursor to continue after.' })
  after?: string | null;

  @Field(() => Int, { nullable: true, description: 'Page size from the end, 1..100.' })
  last?: number | null;

  @Field(() => String, { nullable: true, description: 'Cursor to continue before.' })
  before?: string | null;
}

@ArgsType()
export class ViewerEventsArgs extends EventConnectionArgs {
  @Field(() => EventScope, {
    nullable: true,
    description: 'AUTHORED (default), ALL, STARRED or FOLLOWED.',
  })
  scope?: EventScopeValue | null;
}
