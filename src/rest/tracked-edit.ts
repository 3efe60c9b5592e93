/** What an edit of an issue or a merge request may change, read the same way for both. */
import type { TRACKED_STATE_EVENTS } from '../domain/content-rules.js';
import { type ParamValue, intOrNull, str } from './body.js';

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
