/** Batch lookups of event targets and payloads, by id (one query per kind per page). */
import type { Kysely } from 'kysely';
import type {
  Database,
  IssueRow,
  MergeRequestRow,
  MilestoneRow,
  NoteRow,
  PushPayloadRow,
  SnippetRow,
} from './schema.js';

export class ContentStore {
  constructor(private readonly db: Kysely<Database>) {}

  issues(ids: readonly number[]): Promise<IssueRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom('issues')
      .selectAll()
      .where('id', 'in', [...ids])
      .execute();
  }

  mergeRequests(ids: readonly number[]): Promise<MergeRequestRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom('merge_requests')
      .selectAll()
      .where('id', 'in', [...ids])
      .execute();
  }

  milestones(ids: readonly number[]): Promise<MilestoneRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom('milestones')
      .selectAll()
      .where('id', 'in', [...ids])
      .execute();
  }

  snippets(ids: readonly number[]): Promise<SnippetRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom('snippets')
      .selectAll()
      .where('id', 'in', [...ids])
      .execute();
  }

  notes(ids: readonly number[]): Promise<NoteRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom('notes')
      .selectAll()
      .where('id', 'in', [...ids])
      .execute();
  }

  pushPayloads(eventIds: readonly number[]): Promise<PushPayloadRow[]> {
    if (eventIds.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom('push_event_payloads')
      .selectAll()
      .where('event_id', 'in', [...eventIds])
      .execute();
  }
}
