/**
 * The events of one object for the pages behind the links: an issue's, a merge request's or a
 * milestone's own events, and the pushes that carried a commit, spanned a compare range or moved
 * a ref. The store finds the candidates; each is then read through the project's listing for
 * this viewer, so what a page shows is what the activity listings show (confidential issues,
 * code access), with no second copy of those rules.
 */
import type { Viewer } from '../../domain/visibility.js';
import type { ObjectTarget, PushMatch } from '../../store/object-events.js';
import type { Store } from '../../store/store.js';
import type { ActivityService, EventView, ResolvedProject } from './activity.js';

export type { ObjectTarget, PushMatch } from '../../store/object-events.js';

/** Events a page lists of one object (the newest). */
export const OBJECT_EVENTS_SHOWN = 30;

export class ObjectActivity {
  constructor(
    private readonly store: Store,
    private readonly activity: ActivityService,
  ) {}

  /** The object's own events and those of its notes, newest first. */
  async ofTarget(
    resolved: ResolvedProject,
    target: ObjectTarget,
    viewer: Viewer | null,
  ): Promise<EventView[]> {
    const ids = await this.store.objectEvents.ofTarget(
      resolved.project.id,
      target,
      OBJECT_EVENTS_SHOWN,
    );
    return this.visible(resolved, ids, viewer);
  }

  /** Push events that match, newest first. */
  async pushes(
    resolved: ResolvedProject,
    match: PushMatch,
    viewer: Viewer | null,
  ): Promise<EventView[]> {
    const ids = await this.store.objectEvents.pushes(
      resolved.project.id,
      match,
      OBJECT_EVENTS_SHOWN,
    );
    return this.visible(resolved, ids, viewer);
  }

  /** Each event as the project's listing shows it to this viewer; hidden ones are left out. */
  private async visible(
    resolved: ResolvedProject,
    ids: readonly number[],
    viewer: Viewer | null,
  ): Promise<EventView[]> {
    if (ids.length === 0) return [];
    const source = { kind: 'project', project: resolved } as const;
    const listing = await this.activity.listingOf(source, { sort: 'desc' }, viewer);
    const found = await Promise.all(
      ids.map(async (id) => {
        const [event] = await listing.window({ afterId: id + 1, limit: 1 });
        return event && event.id === id ? event : null;
      }),
    );
    return found.filter((e): e is EventView => e !== null);
  }
}
