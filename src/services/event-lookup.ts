/**
 * One event by id, under exactly the rules of a listing (project visibility, confidential issues,
 * code access): the event is looked up through its project's listing, so there is no second copy
 * of those rules. GraphQL's `node(id:)` uses it.
 */
import { NotFoundError } from '../domain/errors.js';
import type { Viewer } from '../domain/visibility.js';
import type { Store } from '../store/store.js';
import type { ActivityService, EventView } from './activity.js';

export async function findVisibleEvent(
  activity: ActivityService,
  store: Store,
  id: number,
  viewer: Viewer | null,
): Promise<EventView | null> {
  const [row] = await store.events.byIds([id]);
  if (!row) return null;
  let q;
  try {
    q = await activity.query(
      { kind: 'project', idOrPath: String(row.project_id) },
      { sort: 'desc' },
      viewer,
    );
  } catch (error) {
    if (error instanceof NotFoundError) return null;
    throw error;
  }
  if (!q) return null;
  // Newest-first window starting just above the id: the first row is the event iff it is visible.
  const [found] = await activity.listWindow(q, { afterId: id + 1, limit: 1 });
  if (!found || found.id !== id) return null;
  const [view] = await activity.hydrate([found]);
  return view ?? null;
}
