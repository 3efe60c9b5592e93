/** Objects an event can be about (its target) besides users and projects. */
import { Field, Int, ObjectType } from 'type-graphql';
import { NodeInterface } from './node.js';
import { SafeIntScalar, TimeScalar } from './scalars.js';
import { UserType } from './user.js';

/**
 * Nullable on every member of `EventTarget`/`EventPayload` alike: personal snippets have no
 * project, and a field selected across a union must have one type on all its members.
 */
const PROJECT_ID = 'The numeric id of the project; null for personal snippets only.';

@ObjectType('Issue', { implements: NodeInterface, simpleResolvers: true })
export class IssueType {
  __typename!: 'Issue';
  id!: string;
  @Field(() => SafeIntScalar) databaseId!: number;
  @Field(() => Int, { description: 'Number within the project (#iid).' }) iid!: number;
  @Field(() => String) title!: string;
  @Field(() => String, { description: 'Markdown, as written ("" when none).' })
  description!: string;
  @Field(() => String, { description: '`opened` or `closed`.' }) state!: string;
  @Field(() => Boolean) confidential!: boolean;
  @Field(() => Int, { nullable: true, description: PROJECT_ID })
  projectId!: number | null;
  @Field(() => UserType, { nullable: true }) author!: UserType | null;
  @Field(() => TimeScalar) createdAt!: number;
  @Field(() => TimeScalar) updatedAt!: number;
  @Field(() => TimeScalar, { nullable: true, description: 'Null while open.' })
  closedAt!: number | null;
  // webUrl: resolved by resolvers/content.ts (it needs the project's path).
}

@ObjectType('MergeRequest', { implements: NodeInterface, simpleResolvers: true })
export class MergeRequestType {
  __typename!: 'MergeRequest';
  id!: string;
  @Field(() => SafeIntScalar) databaseId!: number;
  @Field(() => Int, { description: 'Number within the project (!iid).' }) iid!: number;
  @Field(() => String) title!: string;
  @Field(() => String, { description: 'Markdown, as written ("" when none).' })
  description!: string;
  @Field(() => String, { description: '`opened`, `closed`, `merged` or `locked`.' })
  state!: string;
  @Field(() => String) sourceBranch!: string;
  @Field(() => String) targetBranch!: string;
  @Field(() => Int, { nullable: true, description: PROJECT_ID })
  projectId!: number | null;
  @Field(() => UserType, { nullable: true }) author!: UserType | null;
  @Field(() => TimeScalar) createdAt!: number;
  @Field(() => TimeScalar) updatedAt!: number;
  @Field(() => TimeScalar, { nullable: true, description: 'Null unless closed.' })
  closedAt!: number | null;
  @Field(() => TimeScalar, { nullable: true, description: 'Null unless merged.' })
  mergedAt!: number | null;
  // webUrl: resolved by resolvers/content.ts (it needs the project's path).
}

@ObjectType('Milestone', { implements: NodeInterface, simpleResolvers: true })
export class MilestoneType {
  __typename!: 'Milestone';
  id!: string;
  @Field(() => SafeIntScalar) databaseId!: number;
  @Field(() => Int) iid!: number;
  @Field(() => String) title!: string;
  @Field(() => Int, { nullable: true, description: PROJECT_ID })
  projectId!: number | null;
  @Field(() => TimeScalar) createdAt!: number;
}

@ObjectType('Snippet', { implements: NodeInterface, simpleResolvers: true })
export class SnippetType {
  __typename!: 'Snippet';
  id!: string;
  @Field(() => SafeIntScalar) databaseId!: number;
  @Field(() => String) title!: string;
  @Field(() => Int, { nullable: true, description: PROJECT_ID })
  projectId!: number | null;
  @Field(() => UserType, { nullable: true }) author!: UserType | null;
  @Field(() => TimeScalar) createdAt!: number;
}

@ObjectType('Note', {
  implements: NodeInterface,
  simpleResolvers: true,
  description: 'A comment.',
})
export class NoteType {
  __typename!: 'Note';
  id!: string;
  @Field(() => SafeIntScalar) databaseId!: number;
  @Field(() => String) body!: string;
  @Field(() => Boolean) system!: boolean;
  @Field(() => String, { nullable: true }) attachment!: string | null;
  @Field(() => String, { description: '`Issue`, `MergeRequest`, `Snippet` or `Commit`.' })
  noteableType!: string;
  @Field(() => SafeIntScalar) noteableId!: number;
  @Field(() => Int, { nullable: true, description: 'iid of the issue or merge request.' })
  noteableIid!: number | null;
  @Field(() => Int, { nullable: true, description: PROJECT_ID })
  projectId!: number | null;
  @Field(() => UserType, { nullable: true }) author!: UserType | null;
  @Field(() => TimeScalar) createdAt!: number;
  @Field(() => TimeScalar) updatedAt!: number;
}
