/**
 * Reads what a webhook body is made of, in the caller's transaction (the outbox builds the body
 * from the rows as the write left them). The payload inputs are the services' views
 * (services/views.ts): one mapping from rows, which the domain's body builders read field by field.
 */
import type { HookNote, HookPush } from '../../domain/webhook-payloads.js';
import type { PushCommit } from '../../domain/push-payload.js';
import type { RefType } from '../../domain/vocabulary.js';
import type { NoteRow, PushPayloadRow } from '../../store/schema.js';
import type { Store } from '../../store/store.js';
import {
  type IssueView,
  type MergeRequestView,
  type ProjectView,
  type UserView,
  issueView,
  mergeRequestView,
  noteView,
  projectView,
  userView,
} from '../views.js';

/** Notes on issues and merge requests only: the other noteables have no note hook. */
function hookNoteOf(row: NoteRow): HookNote | undefined {
  const noteableType = row.noteable_type;
  if (noteableType !== 'Issue' && noteableType !== 'MergeRequest') return undefined;
  return { ...noteView(row, null, null), noteableType };
}

function hookPushOf(row: PushPayloadRow): HookPush {
  return {
    refType: row.ref_type as RefType,
    ref: row.ref,
    before: row.commit_from,
    after: row.commit_to,
    commitCount: row.commit_count,
    commits: JSON.parse(row.commits) as PushCommit[],
  };
}

/** The view of the one row a read by id found, if it found one. */
async function viewOf<Row, View>(
  rows: Promise<Row[]>,
  view: (row: Row) => View,
): Promise<View | undefined> {
  const [row] = await rows;
  return row && view(row);
}

/** One-row reads by id, in `tx`. */
export class PayloadSources {
  constructor(private readonly tx: Store) {}

  async user(id: number): Promise<UserView | undefined> {
    const row = await this.tx.webhooks.userRow(id);
    return row && userView(row);
  }

  async project(id: number): Promise<ProjectView | undefined> {
    const row = await this.tx.webhooks.projectRow(id);
    return row && projectView(row);
  }

  issue(id: number): Promise<IssueView | undefined> {
    return viewOf(this.tx.content.issues([id]), issueView);
  }

  mergeRequest(id: number): Promise<MergeRequestView | undefined> {
    return viewOf(this.tx.content.mergeRequests([id]), mergeRequestView);
  }

  note(id: number): Promise<HookNote | undefined> {
    return viewOf(this.tx.content.notes([id]), hookNoteOf);
  }

  push(eventId: number): Promise<HookPush | undefined> {
    return viewOf(this.tx.content.pushPayloads([eventId]), hookPushOf);
  }
}
