/** Inputs and payloads of `createIssue` and `updateIssue`, GitLab's names and shapes. */
import { Field, ID, InputType, ObjectType, registerEnumType } from 'type-graphql';
import type { TrackedStateEvent } from '../../domain/content-rules.js';
import { IssueType } from './content.js';
import { CLIENT_MUTATION_ID, ERRORS, PROJECT_PATH } from './mutation-fields.js';

export const IssueStateEvent: Record<string, TrackedStateEvent> = {
  CLOSE: 'close',
  REOPEN: 'reopen',
};
registerEnumType(IssueStateEvent, {
  name: 'IssueStateEvent',
  description: 'Close or reopen an issue.',
});

@InputType('CreateIssueInput')
export class CreateIssueInput {
  @Field(() => ID, PROJECT_PATH) projectPath!: string;
  @Field(() => String) title!: string;
  @Field(() => String, { nullable: true }) description?: string | null;
  @Field(() => Boolean, { nullable: true }) confidential?: boolean | null;
  @Field(() => String, CLIENT_MUTATION_ID) clientMutationId?: string | null;
}

@InputType('UpdateIssueInput')
export class UpdateIssueInput {
  @Field(() => ID, PROJECT_PATH) projectPath!: string;
  @Field(() => String, { description: 'The issue to change (#iid).' }) iid!: string;
  @Field(() => IssueStateEvent, { nullable: true }) stateEvent?: TrackedStateEvent | null;
  @Field(() => String, { nullable: true }) title?: string | null;
  @Field(() => String, { nullable: true }) description?: string | null;
  @Field(() => Boolean, { nullable: true }) confidential?: boolean | null;
  @Field(() => String, CLIENT_MUTATION_ID) clientMutationId?: string | null;
}

@ObjectType('CreateIssuePayload', { simpleResolvers: true })
export class CreateIssuePayload {
  @Field(() => IssueType, { nullable: true }) issue!: IssueType | null;
  @Field(() => [String], ERRORS) errors!: string[];
  @Field(() => String, CLIENT_MUTATION_ID) clientMutationId!: string | null;
}

@ObjectType('UpdateIssuePayload', { simpleResolvers: true })
export class UpdateIssuePayload {
  @Field(() => IssueType, { nullable: true }) issue!: IssueType | null;
  @Field(() => [String], ERRORS) errors!: string[];
  @Field(() => String, CLIENT_MUTATION_ID) clientMutationId!: string | null;
}
