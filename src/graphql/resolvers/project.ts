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
    nullable: true,
    description: "The project's events the viewer may see (confidential and code rules applied).",
  })
  async events(
    @Root() project: ProjectType,
    @Args(() => EventConnectionArgs) args: EventConnectionArgs,
    @Ctx() ctx: GraphQLContext,
  ) {
    ctx.authorize(ENDPOINT_SCOPES.project);
    // Reached through `project(...)` the reader resolved the project already; through an event's
    // `project` it resolves it now, checking visibility.
    const source = { kind: 'project', id: project.databaseId } as const;
    return eventConnection(ctx, source, toEventFilter(args.filter), args);
  }
}
