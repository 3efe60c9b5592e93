/**
 * Event connections over a listing's keyset windows: a cursor is an event id, so any page costs
 * what the first one costs. Filters become the domain's `EventFilter` through the same day-bound
 * rule REST uses.
 */
import { dayBounds, type EventFilter } from '../domain/filters.js';
import type { ReaderSource } from '../services/activity/activity-reader.js';
import type { GraphQLContext } from './context.js';
import { encodeCursor } from './ids.js';
import { pageWindow, type RawPageArgs } from './pagination.js';
import type { EventConnectionType, EventFilterInput } from './types/connection.js';

export function toEventFilter(input: EventFilterInput | null | undefined): EventFilter {
  const filter: EventFilter = { sort: input?.sort ?? 'desc' };
  if (input?.action) filter.action = input.action;
  if (input?.targetType) filter.targetType = input.targetType;
  const bounds = dayBounds(input?.before ?? undefined, input?.after ?? undefined);
  if (bounds.createdBefore !== undefined) filter.createdBefore = bounds.createdBefore;
  if (bounds.createdFrom !== undefined) filter.createdFrom = bounds.createdFrom;
  return filter;
}

/** One page of a source's events: the reader's one call, presented as a connection. */
export async function eventConnection(
  ctx: GraphQLContext,
  source: ReaderSource,
  filter: EventFilter,
  args: RawPageArgs,
): Promise<EventConnectionType> {
  const window = pageWindow(args);
  const asc = filter.sort === 'asc';
  const bounds = {
    ...(window.afterId !== undefined ? { afterId: window.afterId } : {}),
    ...(window.beforeId !== undefined ? { beforeId: window.beforeId } : {}),
  };
  const forward = window.direction === 'forward';
  const listing = await ctx.reader.events(source, filter, {
    ...bounds,
    limit: window.size + 1,
    reverse: !forward,
  });
  let views = listing.events;
  const more = views.length > window.size;
  if (more) views = forward ? views.slice(0, window.size) : views.slice(views.length - window.size);

  // Whether anything lies on the other side of a cursor: asked only if a client reads it.
  const existsAtOrBefore = (id: number) => () => listing.any({ beforeId: asc ? id + 1 : id - 1 });
  const existsAtOrAfter = (id: number) => () => listing.any({ afterId: asc ? id - 1 : id + 1 });

  const nodes = views.map((view) => ctx.present.event(view));
  const edges = nodes.map((node) => ({ cursor: encodeCursor(node.databaseId), node }));
  return {
    edges,
    nodes,
    pageInfo: {
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges[edges.length - 1]?.cursor ?? null,
      hasNext: forward
        ? more
        : window.beforeId !== undefined
          ? existsAtOrAfter(window.beforeId)
          : false,
      hasPrevious: forward
        ? window.afterId !== undefined
          ? existsAtOrBefore(window.afterId)
          : false
        : more,
    },
    listing,
  };
}
