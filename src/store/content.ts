/** Batch lookups of event targets and payloads, by id (one query per kind per page). */
import type { Kysely } from 'kysely';
import { rowsIn } from './rows.js';
import type { Database } from './schema.js';

export class ContentStore {
  constructor(private readonly db: Kysely<Database>) {}

  readonly issues = (ids: readonly number[]) => rowsIn(this.db, 'issues', 'id', ids);
  readonly mergeRequests = (ids: readonly number[]) => rowsIn(this.db, 'merge_requests', 'id', ids);
  readonly milestones = (ids: readonly number[]) => rowsIn(this.db, 'milestones', 'id', ids);
  readonly snippets = (ids: readonly number[]) => rowsIn(this.db, 'snippets', 'id', ids);
  readonly notes = (ids: readonly number[]) => rowsIn(this.db, 'notes', 'id', ids);
  readonly pushPayloads = (eventIds: readonly number[]) =>
    rowsIn(this.db, 'push_event_payloads', 'event_id', eventIds);
}
