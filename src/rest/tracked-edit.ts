/**
 * What a list of issues or merge requests may filter by, and what an edit of one may change: read
 * the same way for both.
 */
import type { TProperties } from '@sinclair/typebox';
import { TRACKED_STATE_EVENTS } from '../domain/content-rules.js';
import type { Services } from '../services/container.js';
import type { ContentOps } from '../services/content/ops.js';
import { type ParamValue, intOrNull, ints, str } from './body.js';
import { integer, integers, nullable, text, values } from './params.js';
import { listRoute } from './reads.js';
import { PAGE_PARAMS, PROJECT, type pageOf } from './writes.js';

/** The parameters both lists declare, after `state` (whose values differ). */
export const TRACKED_LIST_PARAMS = {
  iids: integers(),
  sort: values(['asc', 'desc']),
} as const;

export function trackedList(p: Partial<Record<'iids' | 'sort', ParamValue>>) {
  return { iids: ints(p.iids), sort: p.sort === 'asc' ? ('asc' as const) : ('desc' as const) };
}

/**
 * The list route of issues or of merge requests: `state` is one of `states` or `all` (no filter),
 * then the filters both lists share and the page; `list` finds the page and presents it.
 */
export function trackedListRoute<S extends string>(
  services: Services,
  states: readonly S[],
  list: (
    ops: ContentOps,
    project: string,
    query: ReturnType<typeof pageOf> & ReturnType<typeof trackedList> & { state: S | undefined },
  ) => Promise<{ items: unknown[]; total: number }>,
) {
  return listRoute(
    services,
    { ...PROJECT, ...PAGE_PARAMS, state: values([...states, 'all']), ...TRACKED_LIST_PARAMS },
    async (ops, p, page) => {
      const state = str(p.state);
      return list(ops, str(p.id)!, {
        ...page,
        state: states.find((s) => s === state),
        ...trackedList(p),
      });
    },
  );
}

/**
 * What an edit of an issue or a merge request declares: what names it (`key`), then title,
 * description, the kind's `own` fields, milestone and state event, in that order (the order of
 * Grape's messages); `anyOf` is what at least one of must be given.
 */
export function trackedEditParams<K extends TProperties, E extends TProperties>(key: K, own: E) {
  return {
    properties: {
      ...key,
      title: text(),
      description: text(),
      ...own,
      milestone_id: nullable(integer()),
      state_event: values(TRACKED_STATE_EVENTS),
    },
    anyOf: ['title', 'description', ...Object.keys(own), 'milestone_id', 'state_event'],
  };
}

type Declared = Partial<
  Record<'title' | 'description' | 'milestone_id' | 'state_event', ParamValue>
>;

export function trackedEdit(p: Declared) {
  return {
    title: str(p.title),
    description: str(p.description),
    milestoneId: intOrNull(p.milestone_id),
    stateEvent: str(p.state_event) as (typeof TRACKED_STATE_EVENTS)[number] | undefined,
  };
}
