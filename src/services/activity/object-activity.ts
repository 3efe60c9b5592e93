/**
 * The events of one object for the pages behind the links: an issue's, a merge request's or a
 * milestone's own events, and the pushes that carried a commit, spanned a compare range or moved
 * a ref. The store finds the candidates; each is then read through the project's listing for this
 * viewer, so the rules of what a viewer sees are the listings', not a second copy.
 */
import type { Viewer } from '../../domain/visibility.js';
import type { ObjectTarget, PushMatch } from '../../store/object-events.js';
import type { Store } from '../../store/store.js';
import type { ActivityService, EventView, ResolvedProject } from './activity.js';

export type { ObjectTarget, PushMatch } from '../../store/object-events.js';

/** Events a page lists of one object (the newest). */
export const OBJECT_EVENTS_SHOWN = 30;

type Find<M> = (projectId: number, match: M, limit: number) => Promise<readonly number[]>;

export class ObjectActivity {
  constructor(
    private readonly store: Store,
    private readonly activity: ActivityService,
  ) {}

  /** The object's own events and those of its notes, newest first. */
  ofTarget(resolved: ResolvedProject, target: ObjectTarget, viewer: Viewer | null) {
    return this.visible(resolved, target, viewer, (...a) => this.store.objectEvents.ofTarget(...a));
  }

  /** Push events that match, newest first. */
  pushes(resolved: ResolvedProject, match: PushMatch, viewer: Viewer | null) {
    return this.visible(resolved, match, viewer, (...a) => this.store.objectEvents.pushes(...a));
  }

  /** Each event the store finds, as the project's listing shows it to this viewer (or not at all). */
  private async visible<M>(
    resolved: ResolvedProject,
    match: M,
    viewer: Viewer | null,
    find: Find<M>,
  ): Promise<EventView[]> {
    const ids = await find(resolved.project.id, match, OBJECT_EVENTS_SHOWN);
    if (ids.length === 0) return [];
    const source = { kind: 'project', project: resolved } as const;
    const listing = await this.activity.listingOf(source, { sort: 'desc' }, viewer);
    const found = await Promise.all(
      ids.map(async (id) => {
        const [event] = await listing.window({ afterId: id + 1, limit: 1 });
        return event?.id === id ? event : null;
      }),
    );
    return found.filter((e): e is EventView => e !== null);
  }
}
