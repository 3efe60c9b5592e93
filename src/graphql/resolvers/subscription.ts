/**
 * `Subscription.eventCreated`: the events committed from now on that the subscriber could list,
 * from a project, a user, or what `events(scope: …)` lists for the viewer (ALL when neither). The
 * source is resolved here, as `Query.project` / `Query.user` resolve it (NOT_FOUND when it is not
 * readable); the live service re-checks visibility for every event at delivery time.
 */
import { Arg, Ctx, ID, Resolver, Root, Subscription } from 'type-graphql';
import { UnauthenticatedError, ValidationError } from '../../domain/errors.js';
import { ENDPOINT_SCOPES } from '../../domain/scopes.js';
import type { EventView } from '../../services/activity/activity.js';
import type { LiveSource, LiveStream } from '../../services/live/live-activity.js';
import type { GraphQLContext } from '../context.js';
import { toEventFilter } from '../connection.js';
import { idArgument } from '../ids.js';
import { EventFilterInput } from '../types/connection.js';
import { EventScope, type EventScopeValue } from '../types/enums.js';
import { EventType } from '../types/event.js';

interface EventCreatedArgs {
  project?: string | null;
  user?: string | null;
  scope?: EventScopeValue | null;
  filter?: EventFilterInput | null;
}

async function liveSource(ctx: GraphQLContext, args: EventCreatedArgs): Promise<LiveSource> {
  const given = [args.project, args.user, args.scope].filter((arg) => arg != null).length;
  if (given > 1) {
    throw new ValidationError(['at most one of project, user or scope may be given']);
  }
  if (args.project != null) {
    ctx.authorize(ENDPOINT_SCOPES.project);
    const project = await ctx.reader.project(idArgument(args.project, 'Project'));
    return { kind: 'project', projectId: project.id };
  }
  ctx.authorize(ENDPOINT_SCOPES.user);
  if (args.user != null) {
    const user = await ctx.reader.user(idArgument(args.user, 'User'));
    return { kind: 'user', userId: user.id };
  }
  if (!ctx.viewer) throw new UnauthenticatedError();
  switch (args.scope) {
    case 'authored':
      return { kind: 'user', userId: ctx.viewer.userId };
    case 'starred':
    case 'followed':
      return { kind: args.scope };
    default:
      return { kind: 'memberships' };
  }
}

/**
 * The stream, with the context renewed before each event: events are executed one at a time (the
 * transport asks for the next once the previous is sent), so the event's fields are read afresh.
 */
function renewing(stream: LiveStream, ctx: GraphQLContext): AsyncIterableIterator<EventView> {
  return {
    next: async () => {
      const result = await stream.next();
      if (!result.done) ctx.renew();
      return result;
    },
    return: () => stream.return(),
    throw: (error?: unknown) => stream.throw(error),
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

@Resolver()
export class SubscriptionResolver {
  @Subscription(() => EventType, {
    description:
      'Events as they are committed, in id order, each only if the subscriber could list it then: of `project` (id, full path or global id), of `user` (id, username or global id), or what `events(scope: …)` lists for the viewer (needs a token; ALL when none of the three is given; STARRED and FOLLOWED follow stars and follows taken or dropped while subscribed). Over WebSocket (graphql-transport-ws) only.',
    subscribe: async ({ args, context }) => {
      const ctx = context as GraphQLContext;
      const input = args as EventCreatedArgs;
      const source = await liveSource(ctx, input);
      const stream = await ctx.live.subscribe({
        viewer: ctx.viewer,
        source,
        filter: toEventFilter(input.filter),
      });
      return renewing(stream, ctx);
    },
  })
  eventCreated(
    @Root() event: EventView,
    @Arg('project', () => ID, { nullable: true }) _project: string | null,
    @Arg('user', () => ID, { nullable: true }) _user: string | null,
    @Arg('scope', () => EventScope, { nullable: true }) _scope: EventScopeValue | null,
    @Arg('filter', () => EventFilterInput, { nullable: true }) _filter: EventFilterInput | null,
    @Ctx() ctx: GraphQLContext,
  ): EventType {
    return ctx.present.event(event);
  }
}
