/** The root queries. Each authenticates its scope, calls a service, and presents the result. */
import { Arg, Args, Ctx, ID, Query, Resolver } from 'type-graphql';
import { NotFoundError, UnauthenticatedError, ValidationError } from '../../domain/errors.js';
import { MAX_PER_PAGE } from '../../domain/pagination.js';
import { ENDPOINT_SCOPES } from '../../domain/scopes.js';
import { findVisibleEvent } from '../../services/event-lookup.js';
import type { GraphQLContext } from '../context.js';
import { eventConnection, toEventFilter } from '../connection.js';
import { fromGlobalId } from '../ids.js';
import { EventConnectionType, ViewerEventsArgs } from '../types/connection.js';
import { NodeInterface } from '../types/node.js';
import { ProjectType } from '../types/project.js';
import { UserType } from '../types/user.js';

@Resolver()
export class QueryResolver {
  @Query(() => UserType, {
    nullable: true,
    description: 'The owner of the token; null when anonymous.',
  })
  currentUser(@Ctx() ctx: GraphQLContext): UserType | null {
    ctx.authorize(ENDPOINT_SCOPES.user);
    if (!ctx.principal) return null;
    ctx.resolved.users.set(ctx.principal.user.id, ctx.principal.user);
    return ctx.present.user(ctx.principal.user);
  }

  @Query(() => EventConnectionType, {
    description: "The viewer's events (REST /events); scope ALL as REST scope=all. Needs a token.",
  })
  async events(@Args(() => ViewerEventsArgs) args: ViewerEventsArgs, @Ctx() ctx: GraphQLContext) {
    if (!ctx.viewer) throw new UnauthenticatedError();
    ctx.authorize(ENDPOINT_SCOPES.user);
    const q = await ctx.services.activity.query(
      { kind: 'viewer', scope: args.scope === 'all' ? 'all' : undefined },
      toEventFilter(args.filter),
      ctx.viewer,
    );
    return eventConnection(ctx, q, args);
  }

  @Query(() => UserType, {
    nullable: true,
    description: 'A user by numeric id or username (case-insensitive), as REST /users/:id.',
  })
  async user(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext) {
    ctx.authorize(ENDPOINT_SCOPES.user);
    const user = await ctx.services.activity.findUser(id);
    ctx.resolved.users.set(user.id, user);
    return ctx.present.user(user);
  }

  @Query(() => ProjectType, {
    nullable: true,
    description: 'A project by numeric id or full path; NOT_FOUND when missing or not visible.',
  })
  async project(@Arg('idOrPath', () => ID) idOrPath: string, @Ctx() ctx: GraphQLContext) {
    ctx.authorize(ENDPOINT_SCOPES.project);
    const resolved = await ctx.services.activity.findProject(idOrPath, ctx.viewer);
    ctx.resolved.projects.set(resolved.project.id, resolved);
    return ctx.present.project(resolved.project);
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
  const { activity } = ctx.services;
  switch (gid.type) {
    case 'User': {
      ctx.authorize(ENDPOINT_SCOPES.user);
      const row = await ctx.loaders.users.load(gid.id);
      return row ? ctx.present.user(row) : null;
    }
    case 'Project': {
      ctx.authorize(ENDPOINT_SCOPES.project);
      try {
        const resolved = await activity.findProject(String(gid.id), ctx.viewer);
        ctx.resolved.projects.set(resolved.project.id, resolved);
        return ctx.present.project(resolved.project);
      } catch (error) {
        if (error instanceof NotFoundError) return null;
        throw error;
      }
    }
    case 'Event': {
      ctx.authorize(ENDPOINT_SCOPES.project);
      const view = await findVisibleEvent(activity, ctx.services.store, gid.id, ctx.viewer);
      return view ? ctx.present.event(view) : null;
    }
  }
}
