/**
 * A project whose history holds one event of every action and every target type, with known
 * timestamps on day boundaries, plus an in-memory model of it so tests can compute the expected
 * answer of any filter instead of hard-coding id lists.
 */
import type { Action } from '../../src/domain/vocabulary.js';
import type { Store } from '../../src/store/store.js';
import { Fixtures } from './fixtures.js';

export interface ModelEvent {
  id: number;
  action: Action;
  targetType: string | null;
  createdAt: number;
}

export interface Catalog {
  ownerId: number;
  ownerToken: string;
  projectId: number;
  events: ModelEvent[];
}

const at = (iso: string) => Date.parse(iso);

/**
 * alice owns the public project `acme/catalog`. The last event is the oldest by `created_at` but has
 * the highest id, which tells ordering by id apart from ordering by time.
 */
export async function seedCatalog(store: Store): Promise<Catalog> {
  const f = new Fixtures(store);
  const alice = await f.user('alice');
  const project = await f.project('acme/catalog', alice.id, 'public');
  await f.member(project.id, alice.id, 50);
  const issue = await f.issue(project.id, alice.id, 'Crash on start');
  const mr = await f.mergeRequest(project.id, alice.id, 'Fix crash');
  const note = await f.note(project.id, alice.id, { type: 'Issue', id: issue.id }, 'Confirmed');
  const milestone = await store.db
    .insertInto('milestones')
    .values({ project_id: project.id, iid: 1, title: 'v1.0', created_at: at('2026-01-01') })
    .returningAll()
    .executeTakeFirstOrThrow();
  const snippet = await store.db
    .insertInto('snippets')
    .values({
      project_id: project.id,
      title: 'Repro script',
      author_id: alice.id,
      visibility: 'public',
      created_at: at('2026-01-01'),
    })
    .returningAll()
    .executeTakeFirstOrThrow();

  const specs: Array<{
    action: Action;
    targetType: string | null;
    targetId: number | null;
    issueId?: number;
    createdAt: string;
    push?: boolean;
  }> = [
    { action: 'created', targetType: null, targetId: null, createdAt: '2026-01-01T08:00:00.000Z' },
    {
      action: 'created',
      targetType: 'Issue',
      targetId: issue.id,
      issueId: issue.id,
      createdAt: '2026-01-01T10:00:00.000Z',
    },
    {
      action: 'updated',
      targetType: 'Issue',
      targetId: issue.id,
      issueId: issue.id,
      createdAt: '2026-01-02T00:00:00.000Z',
    },
    {
      action: 'closed',
      targetType: 'Issue',
      targetId: issue.id,
      issueId: issue.id,
      createdAt: '2026-01-02T23:59:59.999Z',
    },
    {
      action: 'reopened',
      targetType: 'Issue',
      targetId: issue.id,
      issueId: issue.id,
      createdAt: '2026-01-03T00:00:00.000Z',
    },
    {
      action: 'pushed',
      targetType: null,
      targetId: null,
      createdAt: '2026-01-03T12:00:00.000Z',
      push: true,
    },
    {
      action: 'commented',
      targetType: 'Note',
      targetId: note.id,
      issueId: issue.id,
      createdAt: '2026-01-04T09:30:00.000Z',
    },
    {
      action: 'created',
      targetType: 'MergeRequest',
      targetId: mr.id,
      createdAt: '2026-01-04T10:00:00.000Z',
    },
    {
      action: 'merged',
      targetType: 'MergeRequest',
      targetId: mr.id,
      createdAt: '2026-01-05T10:00:00.000Z',
    },
    {
      action: 'approved',
      targetType: 'MergeRequest',
      targetId: mr.id,
      createdAt: '2026-01-05T11:00:00.000Z',
    },
    { action: 'joined', targetType: null, targetId: null, createdAt: '2026-01-05T12:00:00.000Z' },
    { action: 'left', targetType: null, targetId: null, createdAt: '2026-01-06T12:00:00.000Z' },
    { action: 'expired', targetType: null, targetId: null, createdAt: '2026-01-06T13:00:00.000Z' },
    {
      action: 'created',
      targetType: 'Milestone',
      targetId: milestone.id,
      createdAt: '2026-01-07T09:00:00.000Z',
    },
    {
      action: 'destroyed',
      targetType: 'Milestone',
      targetId: milestone.id,
      createdAt: '2026-01-07T10:00:00.000Z',
    },
    {
      action: 'created',
      targetType: 'Snippet',
      targetId: snippet.id,
      createdAt: '2026-01-08T10:00:00.000Z',
    },
    {
      action: 'updated',
      targetType: 'Project',
      targetId: project.id,
      createdAt: '2026-01-08T11:00:00.000Z',
    },
    {
      action: 'updated',
      targetType: 'User',
      targetId: alice.id,
      createdAt: '2026-01-08T12:00:00.000Z',
    },
    {
      action: 'created',
      targetType: 'WikiPage::Meta',
      targetId: 7001,
      createdAt: '2026-01-09T10:00:00.000Z',
    },
    {
      action: 'updated',
      targetType: 'WikiPage::Meta',
      targetId: 7001,
      createdAt: '2026-01-09T11:00:00.000Z',
    },
    {
      action: 'created',
      targetType: 'DesignManagement::Design',
      targetId: 8001,
      createdAt: '2026-01-10T10:00:00.000Z',
    },
    {
      action: 'destroyed',
      targetType: 'DesignManagement::Design',
      targetId: 8001,
      createdAt: '2026-01-10T11:00:00.000Z',
    },
    // Inserted last (highest id) but the oldest by time.
    {
      action: 'closed',
      targetType: 'Issue',
      targetId: issue.id,
      issueId: issue.id,
      createdAt: '2025-12-31T23:00:00.000Z',
    },
  ];

  const events: ModelEvent[] = [];
  for (const spec of specs) {
    const row = await f.event({
      projectId: project.id,
      authorId: alice.id,
      action: spec.action,
      targetType: spec.targetType,
      targetId: spec.targetId,
      issueId: spec.issueId ?? null,
      createdAt: spec.createdAt,
      ...(spec.push ? { push: { commits: [{ id: 'c'.repeat(40), message: 'Ship it' }] } } : {}),
    });
    events.push({
      id: row.id,
      action: spec.action,
      targetType: spec.targetType,
      createdAt: at(spec.createdAt),
    });
  }
  const ownerToken = await f.token(alice.id, ['api']);
  return { ownerId: alice.id, ownerToken, projectId: project.id, events };
}

/** Ids of the model's events matching a predicate, in the API's order for `sort`. */
export function expectedIds(
  events: readonly ModelEvent[],
  keep: (e: ModelEvent) => boolean,
  sort: 'asc' | 'desc' = 'desc',
): number[] {
  const ids = events
    .filter(keep)
    .map((e) => e.id)
    .sort((a, b) => a - b);
  return sort === 'asc' ? ids : ids.reverse();
}
