/** `createIssue` and `updateIssue` over the content service (the events are the service's). */
import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../context.js';
import { idArgument } from '../ids.js';
import { iidOf, mutate } from '../mutation.js';
import {
  CreateIssueInput,
  CreateIssuePayload,
  UpdateIssueInput,
  UpdateIssuePayload,
} from '../types/issue-mutations.js';

/** GraphQL's explicit null means "not given", as GitLab's mutations read it. */
export const given = <T>(value: T | null | undefined): T | undefined => value ?? undefined;

@Resolver()
export class IssueMutationResolver {
  @Mutation(() => CreateIssuePayload, {
    nullable: true,
    description: 'Opens an issue (writes the "opened" event).',
  })
  createIssue(
    @Arg('input', () => CreateIssueInput) input: CreateIssueInput,
    @Ctx() ctx: GraphQLContext,
  ) {
    return mutate(ctx, input, 'issue', async (ops) => {
      const detail = await ops.issues.create(idArgument(input.projectPath, 'Project'), {
        title: input.title,
        description: given(input.description),
        confidential: given(input.confidential),
      });
      ctx.present.project(detail.project);
      return ctx.present.issue(detail.issue, detail.author);
    });
  }

  @Mutation(() => UpdateIssuePayload, {
    nullable: true,
    description:
      'Edits, closes or reopens an issue ("closed"/"reopened" events; edits write none, as GitLab).',
  })
  updateIssue(
    @Arg('input', () => UpdateIssueInput) input: UpdateIssueInput,
    @Ctx() ctx: GraphQLContext,
  ) {
    return mutate(ctx, input, 'issue', async (ops) => {
      const detail = await ops.issues.update(
        idArgument(input.projectPath, 'Project'),
        iidOf(input.iid, 'Issue'),
        {
          title: given(input.title),
          description: given(input.description),
          confidential: given(input.confidential),
          stateEvent: given(input.stateEvent),
        },
      );
      ctx.present.project(detail.project);
      return ctx.present.issue(detail.issue, detail.author);
    });
  }
}
