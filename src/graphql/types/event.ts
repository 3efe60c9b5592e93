/** An activity event, with REST's flat target fields and typed `target` / `payload` unions. */
import { Field, Int, ObjectType, createUnionType } from 'type-graphql';
import type { Action, TargetClass } from '../../domain/vocabulary.js';
import { IssueType, MergeRequestType, MilestoneType, NoteType, SnippetType } from './content.js';
import { EventAction, EventTargetType } from './enums.js';
import { NodeInterface } from './node.js';
import { ProjectType } from './project.js';
import { PushDataType } from './push.js';
import { SafeIntScalar, TimeScalar } from './scalars.js';
import { UserType } from './user.js';

const byTypename = (value: { __typename: string }) => value.__typename;

export const EventTargetUnion = createUnionType({
  name: 'EventTarget',
  description: 'The object an event is about.',
  types: () =>
    [
      IssueType,
      MergeRequestType,
      MilestoneType,
      NoteType,
      ProjectType,
      SnippetType,
      UserType,
    ] as const,
  resolveType: byTypename,
});

export const EventPayloadUnion = createUnionType({
  name: 'EventPayload',
  description: 'The comment of a `COMMENTED` event, or the push of a `PUSHED` event.',
  types: () => [NoteType, PushDataType] as const,
  resolveType: byTypename,
});

@ObjectType('Event', { implements: NodeInterface, simpleResolvers: true })
export class EventType {
  __typename!: 'Event';

  id!: string;

  @Field(() => SafeIntScalar, { description: 'The numeric id REST uses (`id`).' })
  databaseId!: number;

  @Field(() => EventAction)
  action!: Action;

  @Field(() => String, { description: 'As REST `action_name` ("opened", "pushed to", …).' })
  actionName!: string;

  @Field(() => TimeScalar)
  createdAt!: string;

  @Field(() => Int)
  projectId!: number;

  @Field(() => Int)
  authorId!: number;

  @Field(() => EventTargetType, { nullable: true, description: 'As REST `target_type`.' })
  targetType!: TargetClass | null;

  @Field(() => SafeIntScalar, { nullable: true, description: 'As REST `target_id`.' })
  targetId!: number | null;

  @Field(() => Int, { nullable: true, description: 'As REST `target_iid`.' })
  targetIid!: number | null;

  @Field(() => String, { nullable: true, description: 'As REST `target_title`.' })
  targetTitle!: string | null;

  @Field(() => UserType, { nullable: true })
  author!: UserType | null;

  @Field(() => ProjectType)
  project!: ProjectType;

  @Field(() => Boolean, { description: 'As REST `imported`: always false (no importer).' })
  imported!: boolean;

  @Field(() => EventPayloadUnion, { nullable: true })
  payload!: NoteType | PushDataType | null;

  // `target` is resolved lazily (resolvers/event.ts): it needs its own batched lookups.
}
