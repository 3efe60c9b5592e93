/** `Project.events`: a project's events as REST `/projects/:id/events` lists them. */
import { Args, Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import { ENDPOINT_SCOPES } from '../../domain/scopes.js';
import type { GraphQLContext } from '../context.js';
import { eventConnection, toEventFilter } from '../connection.js';
import { EventConnectionArgs, EventConnectionType } from '../types/connection.js';
import { ProjectType } from '../types/project.js';

@Resolver(() => ProjectType)
export class ProjectResolver {
  @FieldResolver(() => EventConnectionType, {
    description: "The project's events the viewer may see (confidential and code rules applied).",
  })
  async events(
    @Root() project: ProjectType,
    @Args(() => EventConnectionArgs) args: EventConnectionArgs,
    @Ctx() ctx: GraphQLContext,
  ) {
    ctx.authorize(ENDPOINT_SCOPES.project);
    const { activity } = ctx.services;
    const filter = toEventFilter(args.filter);
    // Reached through `project(...)`/`node(...)` the project is resolved already; through an
    // event's `project` it is not, and visibility is checked here.
    const resolved =
      ctx.resolved.projects.get(project.databaseId) ??
      (await activity.findProject(String(project.databaseId), ctx.viewer));
    return eventConnection(ctx, activity.projectQuery(resolved, filter, ctx.viewer), args);
  }
}
