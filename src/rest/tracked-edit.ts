/**
 * What a list of issues or merge requests may filter by, and what an edit of one may change: read
 * the same way for both.
 */
import type { TRACKED_STATE_EVENTS } from '../domain/content-rules.js';
import { type ParamValue, intOrNull, ints, str } from './body.js';
import { integers, values } from './params.js';

/** The parameters both lists declare, after `state` (whose values differ). */
export const TRACKED_LIST_PARAMS = {
  iids: integers(),
  sort: values(['asc', 'desc']),
} as const;

export function trackedList(p: Partial<Record<'iids' | 'sort', ParamValue>>) {
  return { iids: ints(p.iids), sort: p.sort === 'asc' ? ('asc' as const) : ('desc' as const) };
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
