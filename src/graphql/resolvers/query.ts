/** The root queries. Each authenticates its scope, calls a service, and presents the result. */
import { Arg, Args, Ctx, ID, Query, Resolver } from 'type-graphql';
import { UnauthenticatedError, ValidationError } from '../../domain/errors.js';
import { MAX_PER_PAGE } from '../../domain/pagination.js';
import { ENDPOINT_SCOPES } from '../../domain/scopes.js';
import type { GraphQLContext } from '../context.js';
import { eventConnection, toEventFilter } from '../connection.js';
import { fromGlobalId } from '../ids.js';
import { EventConnectionType, ViewerEventsArgs } from '../types/connection.js';
import { NodeInterface } from '../types/node.js';
import { ProjectType } from '../types/project.js';
import { QueryComplexityType } from '../types/complexity.js';
import { UserType } from '../types/user.js';

@Resolver()
export class QueryResolver {
  @Query(() => UserType, {
    nullable: true,
    description: 'The owner of the token; null when anonymous.',
  })
  currentUser(@Ctx() ctx: GraphQLContext): UserType | null {
    ctx.authorize(ENDPOINT_SCOPES.user);
    return ctx.principal ? ctx.present.user(ctx.principal.user) : null;
  }

  @Query(() => EventConnectionType, {
    nullable: true,
    description: "The viewer's events (REST /events); scope ALL as REST scope=all. Needs a token.",
  })
  async events(@Args(() => ViewerEventsArgs) args: ViewerEventsArgs, @Ctx() ctx: GraphQLContext) {
    if (!ctx.viewer) throw new UnauthenticatedError();
    ctx.authorize(ENDPOINT_SCOPES.user);
    const scope = args.scope === 'all' ? 'all' : undefined;
    const listing = ctx.reader.viewerEvents(ctx.viewer, scope, toEventFilter(args.filter));
    return eventConnection(ctx, listing, args);
  }

  @Query(() => UserType, {
    nullable: true,
    description: 'A user by numeric id or username (case-insensitive), as REST /users/:id.',
  })
  async user(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext) {
    ctx.authorize(ENDPOINT_SCOPES.user);
    return ctx.present.user(await ctx.reader.user(id));
  }

  @Query(() => ProjectType, {
    nullable: true,
    description: 'A project by numeric id or full path; NOT_FOUND when missing or not visible.',
  })
  async project(@Arg('idOrPath', () => ID) idOrPath: string, @Ctx() ctx: GraphQLContext) {
    ctx.authorize(ENDPOINT_SCOPES.project);
    return ctx.present.project(await ctx.reader.project(idOrPath));
  }

  @Query(() => QueryComplexityType, {
    description: 'What this query costs (the number the request gate computed) and its limit.',
  })
  queryComplexity(@Ctx() ctx: GraphQLContext): QueryComplexityType {
    return { score: ctx.cost.score, limit: ctx.cost.limit };
  }

  @Query(() => NodeInterface, {
    nullable: true,
    description: 'Any User, Project or Event by global id; null when missing or not visible.',
  })
  node(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext) {
    return resolveNode(ctx, id);
  }

  @Query(() => [NodeInterface], { nullable: 'items', description: `At most ${MAX_PER_PAGE} ids.` })
  nodes(@Arg('ids', () => [ID]) ids: string[], @Ctx() ctx: GraphQLContext) {
    if (ids.length > MAX_PER_PAGE) {
      throw new ValidationError([`ids must contain at most ${MAX_PER_PAGE} ids`]);
    }
    return Promise.all(ids.map((id) => resolveNode(ctx, id)));
  }
}

async function resolveNode(ctx: GraphQLContext, value: string) {
  const gid = fromGlobalId(value);
  if (!gid) throw new ValidationError([`${JSON.stringify(value)} is not a valid global id`]);
  const { reader, present } = ctx;
  switch (gid.type) {
    case 'User': {
      ctx.authorize(ENDPOINT_SCOPES.user);
      const user = await reader.userById(gid.id);
      return user ? present.user(user) : null;
    }
    case 'Project': {
      ctx.authorize(ENDPOINT_SCOPES.project);
      const project = await reader.projectOrNull(gid.id);
      return project ? present.project(project) : null;
    }
    case 'Event': {
      ctx.authorize(ENDPOINT_SCOPES.project);
      const view = await reader.event(gid.id);
      return view ? present.event(view) : null;
    }
  }
}
