/** Batch lookups of event targets and payloads, by id (one query per kind per page). */
import type { Kysely } from 'kysely';
import { rowsIn } from './rows.js';
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
    return rowsIn(this.db, 'issues', 'id', ids);
  }

  mergeRequests(ids: readonly number[]): Promise<MergeRequestRow[]> {
    return rowsIn(this.db, 'merge_requests', 'id', ids);
  }

  milestones(ids: readonly number[]): Promise<MilestoneRow[]> {
    return rowsIn(this.db, 'milestones', 'id', ids);
  }

  snippets(ids: readonly number[]): Promise<SnippetRow[]> {
    return rowsIn(this.db, 'snippets', 'id', ids);
  }

  notes(ids: readonly number[]): Promise<NoteRow[]> {
    return rowsIn(this.db, 'notes', 'id', ids);
  }

  pushPayloads(eventIds: readonly number[]): Promise<PushPayloadRow[]> {
    return rowsIn(this.db, 'push_event_payloads', 'event_id', eventIds);
  }
}
