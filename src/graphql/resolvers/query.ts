/** The root queries. Each authenticates its scope, calls a service, and presents the result. */
import { Arg, Args, Ctx, ID, Query, Resolver } from 'type-graphql';
import { UnauthenticatedError, ValidationError } from '../../domain/errors.js';
import { MAX_PER_PAGE } from '../../domain/pagination.js';
import { ENDPOINT_SCOPES } from '../../domain/scopes.js';
import type { GraphQLContext } from '../context.js';
import { eventConnection, toEventFilter } from '../connection.js';
import { fromGlobalId, idArgument } from '../ids.js';
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
    description:
      "The viewer's events (REST /events); scope ALL, STARRED or FOLLOWED as REST scope=all, scope=starred or scope=followed. Needs a token.",
  })
  async events(@Args(() => ViewerEventsArgs) args: ViewerEventsArgs, @Ctx() ctx: GraphQLContext) {
    if (!ctx.viewer) throw new UnauthenticatedError();
    ctx.authorize(ENDPOINT_SCOPES.user);
    const scope = args.scope === 'authored' ? undefined : (args.scope ?? undefined);
    return eventConnection(ctx, { kind: 'viewer', scope }, toEventFilter(args.filter), args);
  }

  @Query(() => UserType, {
    nullable: true,
    description:
      'A user by `id` (numeric, username or global id) or `username` (case-insensitive, as GitLab), as REST /users/:id; exactly one.',
  })
  async user(
    @Arg('id', () => ID, { nullable: true }) id: string | null | undefined,
    @Arg('username', () => String, { nullable: true }) username: string | null | undefined,
    @Ctx() ctx: GraphQLContext,
  ) {
    ctx.authorize(ENDPOINT_SCOPES.user);
    const key = exactlyOne({ id, username });
    return ctx.present.user(
      await ctx.reader.user(key.name === 'id' ? idArgument(key.value, 'User') : key.value),
    );
  }

  @Query(() => ProjectType, {
    nullable: true,
    description:
      'A project by `idOrPath` (numeric id, full path or global id) or `fullPath` (as GitLab); exactly one. NOT_FOUND when missing or not visible.',
  })
  async project(
    @Arg('idOrPath', () => ID, { nullable: true }) idOrPath: string | null | undefined,
    @Arg('fullPath', () => ID, { nullable: true }) fullPath: string | null | undefined,
    @Ctx() ctx: GraphQLContext,
  ) {
    ctx.authorize(ENDPOINT_SCOPES.project);
    const key = exactlyOne({ idOrPath, fullPath });
    return ctx.present.project(
      await ctx.reader.project(
        key.name === 'idOrPath' ? idArgument(key.value, 'Project') : key.value,
      ),
    );
  }

  @Query(() => QueryComplexityType, {
    description: 'What this query costs (the number the request gate computed) and its limit.',
  })
  queryComplexity(@Ctx() ctx: GraphQLContext): QueryComplexityType {
    return { score: ctx.cost.score, limit: ctx.cost.limit };
  }

  @Query(() => NodeInterface, {
    nullable: true,
    description:
      'Any node by global id (ours or `gid://gitlab/<Type>/<id>`); null when missing or not visible.',
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
    case 'Issue':
    case 'MergeRequest':
    case 'Milestone':
    case 'Note':
    case 'Snippet': {
      ctx.authorize(ENDPOINT_SCOPES.project);
      const target = await reader.content(gid.type, gid.id);
      return target ? present.target(target) : null;
    }
  }
}

/** The one argument given among alternatives (`user(id:)` or `user(username:)`). */
function exactlyOne<K extends string>(
  args: Record<K, string | null | undefined>,
): { name: K; value: string } {
  const given = (Object.entries(args) as Array<[K, string | null | undefined]>).filter(
    (entry): entry is [K, string] => entry[1] != null,
  );
  if (given.length !== 1) {
    const names = Object.keys(args).join(' or ');
    throw new ValidationError([`exactly one of ${names} must be given`]);
  }
  return { name: given[0]![0], value: given[0]![1] };
}
