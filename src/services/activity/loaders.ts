/**
 * Per-request DataLoaders: every lookup a reader makes by id goes through one of these, so a page
 * of N events costs one query per kind of object, not N. Created lazily: most requests need few.
 * Rows stay inside the services; the reader hands views to the faces.
 */
import DataLoader from 'dataloader';
import type {
  IssueRow,
  MergeRequestRow,
  MilestoneRow,
  NoteRow,
  ProjectRow,
  PushPayloadRow,
  SnippetRow,
  UserRow,
} from '../../store/schema.js';
import type { Store } from '../../store/store.js';

function byId<T>(
  fetch: (ids: readonly number[]) => Promise<T[]>,
  key: (row: T) => number,
): DataLoader<number, T | null> {
  return new DataLoader<number, T | null>(async (ids) => {
    const rows = await fetch(ids);
    const map = new Map(rows.map((row) => [key(row), row]));
    return ids.map((id) => map.get(id) ?? null);
  });
}

const id = (row: { id: number }) => row.id;

export class Loaders {
  private cache = new Map<string, DataLoader<number, unknown>>();

  constructor(private readonly store: Store) {}

  private get<T>(
    name: string,
    make: () => DataLoader<number, T | null>,
  ): DataLoader<number, T | null> {
    let loader = this.cache.get(name) as DataLoader<number, T | null> | undefined;
    if (!loader) {
      loader = make();
      this.cache.set(name, loader as DataLoader<number, unknown>);
    }
    return loader;
  }

  get users() {
    return this.get<UserRow>('users', () => byId((ids) => this.store.users.byIds(ids), id));
  }
  get projects() {
    return this.get<ProjectRow>('projects', () =>
      byId((ids) => this.store.projects.byIds(ids), id),
    );
  }
  get issues() {
    return this.get<IssueRow>('issues', () => byId((ids) => this.store.content.issues(ids), id));
  }
  get mergeRequests() {
    return this.get<MergeRequestRow>('mergeRequests', () =>
      byId((ids) => this.store.content.mergeRequests(ids), id),
    );
  }
  get milestones() {
    return this.get<MilestoneRow>('milestones', () =>
      byId((ids) => this.store.content.milestones(ids), id),
    );
  }
  get snippets() {
    return this.get<SnippetRow>('snippets', () =>
      byId((ids) => this.store.content.snippets(ids), id),
    );
  }
  get notes() {
    return this.get<NoteRow>('notes', () => byId((ids) => this.store.content.notes(ids), id));
  }
  /** Keyed by event id. */
  get pushPayloads() {
    return this.get<PushPayloadRow>('pushPayloads', () =>
      byId(
        (ids) => this.store.content.pushPayloads(ids),
        (row) => row.event_id,
      ),
    );
  }
}
