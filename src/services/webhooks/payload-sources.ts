/**
 * Reads what a webhook body is made of, in the caller's transaction (the outbox builds the body
 * from the rows as the write left them), and shapes rows into the domain's payload inputs.
 */
import type {
  HookIssue,
  HookMergeRequest,
  HookNote,
  HookProject,
  HookPush,
  HookUser,
} from '../../domain/webhook-payloads.js';
import type { PushCommit } from '../../domain/push-payload.js';
import type { RefType, Visibility } from '../../domain/vocabulary.js';
import type {
  IssueRow,
  MergeRequestRow,
  NoteRow,
  ProjectRow,
  PushPayloadRow,
  UserRow,
} from '../../store/schema.js';
import type { Store } from '../../store/store.js';

export function hookUserOf(row: UserRow): HookUser {
  return {
    id: row.id,
    name: row.name,
    username: row.username,
    email: row.email,
    avatarUrl: row.avatar_url,
  };
}

export function hookProjectOf(row: ProjectRow): HookProject {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    namespace: row.namespace,
    fullPath: row.full_path,
    visibility: row.visibility as Visibility,
    defaultBranch: row.default_branch,
  };
}

export function hookIssueOf(row: IssueRow): HookIssue {
  return {
    id: row.id,
    iid: row.iid,
    projectId: row.project_id,
    title: row.title,
    description: row.description,
    authorId: row.author_id,
    confidential: row.confidential === 1,
    state: row.state,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    closedAt: row.closed_at,
    milestoneId: row.milestone_id,
  };
}

export function hookMergeRequestOf(row: MergeRequestRow): HookMergeRequest {
  return {
    id: row.id,
    iid: row.iid,
    projectId: row.project_id,
    title: row.title,
    description: row.description,
    authorId: row.author_id,
    state: row.state,
    sourceBranch: row.source_branch,
    targetBranch: row.target_branch,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    mergedAt: row.merged_at,
    closedAt: row.closed_at,
    mergedById: row.merged_by_id,
    milestoneId: row.milestone_id,
  };
}

export function hookNoteOf(row: NoteRow): HookNote | null {
  if (row.noteable_type !== 'Issue' && row.noteable_type !== 'MergeRequest') return null;
  return {
    id: row.id,
    body: row.body,
    authorId: row.author_id,
    noteableType: row.noteable_type,
    noteableId: row.noteable_id,
    system: row.system === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function hookPushOf(row: PushPayloadRow): HookPush {
  return {
    refType: row.ref_type as RefType,
    ref: row.ref,
    before: row.commit_from,
    after: row.commit_to,
    commitCount: row.commit_count,
    commits: JSON.parse(row.commits) as PushCommit[],
  };
}

/** One-row reads by id, in `tx`. */
export class PayloadSources {
  constructor(private readonly tx: Store) {}

  async user(id: number): Promise<HookUser | undefined> {
    const row = await this.tx.webhooks.userRow(id);
    return row && hookUserOf(row);
  }

  async project(id: number): Promise<HookProject | undefined> {
    const row = await this.tx.webhooks.projectRow(id);
    return row && hookProjectOf(row);
  }

  async issue(id: number): Promise<HookIssue | undefined> {
    const [row] = await this.tx.content.issues([id]);
    return row && hookIssueOf(row);
  }

  async mergeRequest(id: number): Promise<HookMergeRequest | undefined> {
    const [row] = await this.tx.content.mergeRequests([id]);
    return row && hookMergeRequestOf(row);
  }

  async note(id: number): Promise<HookNote | undefined> {
    const [row] = await this.tx.content.notes([id]);
    return (row && hookNoteOf(row)) ?? undefined;
  }

  async push(eventId: number): Promise<HookPush | undefined> {
    const [row] = await this.tx.content.pushPayloads([eventId]);
    return row && hookPushOf(row);
  }
}
