/** Inputs and payloads of `mergeRequestCreate`, `mergeRequestAccept`, `mergeRequestUpdate`. */
import { Field, ID, InputType, ObjectType, registerEnumType } from 'type-graphql';
import { MergeRequestType } from './content.js';
import { CLIENT_MUTATION_ID, ERRORS, PROJECT_PATH } from './mutation-fields.js';

export type MergeRequestNewStateValue = 'opened' | 'closed';
export const MergeRequestNewState: Record<string, MergeRequestNewStateValue> = {
  OPENED: 'opened',
  CLOSED: 'closed',
};
registerEnumType(MergeRequestNewState, {
  name: 'MergeRequestNewState',
  description: 'The state a merge request is moved to: OPENED (reopen) or CLOSED.',
});

const IID = { description: 'The merge request (!iid).' } as const;

@InputType('MergeRequestCreateInput')
export class MergeRequestCreateInput {
  @Field(() => ID, PROJECT_PATH) projectPath!: string;
  @Field(() => String) title!: string;
  @Field(() => String) sourceBranch!: string;
  @Field(() => String) targetBranch!: string;
  @Field(() => String, { nullable: true }) description?: string | null;
  @Field(() => String, CLIENT_MUTATION_ID) clientMutationId?: string | null;
}

@InputType('MergeRequestAcceptInput')
export class MergeRequestAcceptInput {
  @Field(() => ID, PROJECT_PATH) projectPath!: string;
  @Field(() => String, IID) iid!: string;
  @Field(() => String, CLIENT_MUTATION_ID) clientMutationId?: string | null;
}

@InputType('MergeRequestUpdateInput')
export class MergeRequestUpdateInput {
  @Field(() => ID, PROJECT_PATH) projectPath!: string;
  @Field(() => String, IID) iid!: string;
  @Field(() => MergeRequestNewState, { nullable: true })
  state?: MergeRequestNewStateValue | null;
  @Field(() => String, { nullable: true }) title?: string | null;
  @Field(() => String, { nullable: true }) description?: string | null;
  @Field(() => String, { nullable: true }) targetBranch?: string | null;
  @Field(() => String, CLIENT_MUTATION_ID) clientMutationId?: string | null;
}

function payload(name: string) {
  @ObjectType(name, { simpleResolvers: true })
  class MergeRequestPayload {
    @Field(() => MergeRequestType, { nullable: true }) mergeRequest!: MergeRequestType | null;
    @Field(() => [String], ERRORS) errors!: string[];
    @Field(() => String, CLIENT_MUTATION_ID) clientMutationId!: string | null;
  }
  return MergeRequestPayload;
}

export const MergeRequestCreatePayload = payload('MergeRequestCreatePayload');
export const MergeRequestAcceptPayload = payload('MergeRequestAcceptPayload');
export const MergeRequestUpdatePayload = payload('MergeRequestUpdatePayload');
