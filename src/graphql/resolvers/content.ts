/**
 * `Issue.webUrl` and `MergeRequest.webUrl`: GitLab's page addresses need the project's path, which
 * issue and merge request views do not carry. The project is usually presented in the same
 * response already (an event's `project`, a mutation's payload); otherwise the request's reader
 * resolves it once per project.
 */
import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { GraphQLContext } from '../context.js';
import { IssueType, MergeRequestType } from '../types/content.js';

async function projectUrl(ctx: GraphQLContext, projectId: number | null): Promise<string | null> {
  if (projectId === null) return null;
  const known = ctx.present.presentedProject(projectId);
  if (known) return known.webUrl;
  const project = await ctx.reader.projectOrNull(projectId);
  return project ? ctx.present.project(project).webUrl : null;
}

@Resolver(() => IssueType)
export class IssueResolver {
  @FieldResolver(() => String, {
    nullable: true,
    description: "The issue's page (`<project>/-/issues/<iid>`).",
  })
  async webUrl(@Root() issue: IssueType, @Ctx() ctx: GraphQLContext): Promise<string | null> {
    const base = await projectUrl(ctx, issue.projectId);
    return base === null ? null : `${base}/-/issues/${issue.iid}`;
  }
}

@Resolver(() => MergeRequestType)
export class MergeRequestResolver {
  @FieldResolver(() => String, {
    nullable: true,
    description: "The merge request's page (`<project>/-/merge_requests/<iid>`).",
  })
  async webUrl(@Root() mr: MergeRequestType, @Ctx() ctx: GraphQLContext): Promise<string | null> {
    const base = await projectUrl(ctx, mr.projectId);
    return base === null ? null : `${base}/-/merge_requests/${mr.iid}`;
  }
}
