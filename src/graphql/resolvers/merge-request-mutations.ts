/** `mergeRequestCreate`, `mergeRequestAccept` and `mergeRequestUpdate` over the content service. */
import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
import { NotAllowedError } from '../../domain/errors.js';
import type { MergeRequestDetail } from '../../services/content/merge-requests.js';
import type { GraphQLContext } from '../context.js';
import { idArgument } from '../ids.js';
import { iidOf, mutate } from '../mutation.js';
import {
  MergeRequestAcceptInput,
  MergeRequestAcceptPayload,
  MergeRequestCreateInput,
  MergeRequestCreatePayload,
  MergeRequestUpdateInput,
  MergeRequestUpdatePayload,
} from '../types/merge-request-mutations.js';
import { given } from './issue-mutations.js';

/** GitLab's words when a merge request cannot be merged (here: it is not open). */
export const NOT_MERGEABLE = 'This branch cannot be merged';

function present(ctx: GraphQLContext, detail: MergeRequestDetail) {
  ctx.present.project(detail.project);
  return ctx.present.mergeRequest(detail.mergeRequest, detail.author);
}

@Resolver()
export class MergeRequestMutationResolver {
  @Mutation(() => MergeRequestCreatePayload, {
    nullable: true,
    description: 'Opens a merge request (writes the "opened" event).',
  })
  mergeRequestCreate(
    @Arg('input', () => MergeRequestCreateInput) input: MergeRequestCreateInput,
    @Ctx() ctx: GraphQLContext,
  ) {
    return mutate(ctx, input, 'mergeRequest', async (ops) =>
      present(
        ctx,
        await ops.mergeRequests.create(idArgument(input.projectPath, 'Project'), {
          title: input.title,
          sourceBranch: input.sourceBranch,
          targetBranch: input.targetBranch,
          description: given(input.description),
        }),
      ),
    );
  }

  @Mutation(() => MergeRequestAcceptPayload, {
    nullable: true,
    description: 'Merges an open merge request (writes the "accepted" event).',
  })
  mergeRequestAccept(
    @Arg('input', () => MergeRequestAcceptInput) input: MergeRequestAcceptInput,
    @Ctx() ctx: GraphQLContext,
  ) {
    return mutate(ctx, input, 'mergeRequest', async (ops) => {
      try {
        return present(
          ctx,
          await ops.mergeRequests.merge(
            idArgument(input.projectPath, 'Project'),
            iidOf(input.iid, 'Merge Request'),
          ),
        );
      } catch (error) {
        if (error instanceof NotAllowedError) throw new NotAllowedError(NOT_MERGEABLE);
        throw error;
      }
    });
  }

  @Mutation(() => MergeRequestUpdatePayload, {
    nullable: true,
    description:
      'Edits, closes (state CLOSED) or reopens (state OPENED) a merge request ("closed"/"reopened" events).',
  })
  mergeRequestUpdate(
    @Arg('input', () => MergeRequestUpdateInput) input: MergeRequestUpdateInput,
    @Ctx() ctx: GraphQLContext,
  ) {
    return mutate(ctx, input, 'mergeRequest', async (ops) =>
      present(
        ctx,
        await ops.mergeRequests.update(
          idArgument(input.projectPath, 'Project'),
          iidOf(input.iid, 'Merge Request'),
          {
            title: given(input.title),
            description: given(input.description),
            targetBranch: given(input.targetBranch),
            stateEvent:
              input.state === 'closed' ? 'close' : input.state === 'opened' ? 'reopen' : undefined,
          },
        ),
      ),
    );
  }
}
