/**
 * Project hooks and the webhook outbox. Deliveries are inserted in the event's transaction, claimed
 * by a worker (PostgreSQL: `FOR UPDATE SKIP LOCKED`, so any number of processes claim each row
 * once; SQLite: one writer), and kept afterwards as the delivery log.
 */
import { type ExpressionBuilder, type Kysely, type Updateable, sql } from 'kysely';
import type { Insertable } from 'kysely';
import type {
  Database,
  EventRow,
  ProjectRow,
  UserRow,
  ProjectHookRow,
  ProjectHooksTable,
  WebhookDeliveriesTable,
  WebhookDeliveryRow,
} from './schema.js';
import type { Dialect } from './database.js';
import { countRows } from './listing-sql.js';
import { deleteBy, rowBy, rowsBy } from './rows.js';

export type NewProjectHook = Insertable<ProjectHooksTable>;
export type ProjectHookPatch = Updateable<ProjectHooksTable>;
export type NewDelivery = Insertable<WebhookDeliveriesTable>;
export type HookFlag =
  | 'push_events'
  | 'tag_push_events'
  | 'issues_events'
  | 'confidential_issues_events'
  | 'merge_requests_events'
  | 'note_events'
  | 'confidential_note_events'
  | 'member_events';

/** What one attempt left on its delivery. */
export interface AttemptRecord {
  status: 'pending' | 'delivered' | 'failed';
  nextAttemptAt: number;
  requestHeaders: string;
  responseStatus: number | null;
  responseHeaders: string | null;
  responseBody: string | null;
  error: string | null;
  durationMs: number;
  attemptedAt: number;
}

export class WebhookStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  createHook(hook: NewProjectHook): Promise<ProjectHookRow> {
    return this.db
      .insertInto('project_hooks')
      .values(hook)
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  hook(projectId: number, hookId: number): Promise<ProjectHookRow | undefined> {
    return rowBy(this.db, 'project_hooks', { project_id: projectId, id: hookId });
  }

  hookById(hookId: number): Promise<ProjectHookRow | undefined> {
    return rowBy(this.db, 'project_hooks', { id: hookId });
  }

  hooks(projectId: number): Promise<ProjectHookRow[]> {
    return rowsBy(this.db, 'project_hooks', { project_id: projectId }, 'asc');
  }

  /** The project's hooks subscribed to `flag` that are not disabled for good. */
  subscribed(projectId: number, flag: HookFlag): Promise<ProjectHookRow[]> {
    return this.db
      .selectFrom('project_hooks')
      .selectAll()
      .where('project_id', '=', projectId)
      .where(flag, '=', 1)
      .where('permanently_disabled', '=', 0)
      .orderBy('id')
      .execute();
  }

  async updateHook(hookId: number, patch: ProjectHookPatch): Promise<ProjectHookRow> {
    return this.db
      .updateTable('project_hooks')
      .set(patch)
      .where('id', '=', hookId)
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /** Every hook that has a token (the start-up pass over sealing). */
  hooksWithTokens(): Promise<Pick<ProjectHookRow, 'id' | 'url' | 'token'>[]> {
    return this.db
      .selectFrom('project_hooks')
      .select(['id', 'url', 'token'])
      .where('token', 'is not', null)
      .orderBy('id')
      .execute();
  }

  /**
   * Replaces a hook's stored token only if the hook still has the URL and token it was read with:
   * an edit made meanwhile (a new token, a new URL) is never overwritten.
   */
  async replaceToken(
    hookId: number,
    seen: { url: string; token: string },
    token: string,
  ): Promise<boolean> {
    const result = await this.db
      .updateTable('project_hooks')
      .set({ token })
      .where('id', '=', hookId)
      .where('url', '=', seen.url)
      .where('token', '=', seen.token)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Deletes a hook and its log; false when it was already gone (a parallel delete). */
  async deleteHook(hookId: number): Promise<boolean> {
    await deleteBy(this.db, 'webhook_deliveries', { hook_id: hookId });
    return (await deleteBy(this.db, 'project_hooks', { id: hookId })) > 0;
  }

  async enqueue(rows: readonly NewDelivery[]): Promise<void> {
    if (rows.length === 0) return;
    await this.db
      .insertInto('webhook_deliveries')
      .values([...rows])
      .execute();
  }

  /**
   * Claims up to `limit` due deliveries for `worker` until `leaseUntil`: pending ones whose time
   * has come, and claimed ones whose lease ran out (their process stopped mid-delivery), of hooks
   * that are not disabled and whose next try (after a failure) has come; a delivery asked for by
   * hand goes whatever the hook's state. Each row is handed to one claimer only; a worker never takes over its
   * own claims (they are still in flight however late they are). A claimed row's due time is
   * before its claim, so both kinds are found in the partial index of due rows, in order, without
   * reading the log of finished ones.
   */
  async claim(
    now: number,
    limit: number,
    worker: string,
    leaseUntil: number,
  ): Promise<WebhookDeliveryRow[]> {
    if (limit <= 0) return [];
    const lock = this.dialect === 'postgres' ? sql`FOR UPDATE OF d SKIP LOCKED` : sql``;
    const result = await sql<WebhookDeliveryRow>`
      UPDATE webhook_deliveries
         SET status = 'delivering', claimed_until = ${leaseUntil}, claimed_by = ${worker},
             attempts = attempts + 1
       WHERE id IN (
         SELECT d.id FROM webhook_deliveries d JOIN project_hooks h ON h.id = d.hook_id
          WHERE d.status IN ('pending', 'delivering')
            AND d.next_attempt_at <= ${now}
            AND (d.status = 'pending' OR (d.claimed_until < ${now} AND d.claimed_by <> ${worker}))
            AND (d.manual = 1 OR (
              h.permanently_disabled = 0
              AND (h.disabled_until IS NULL OR h.disabled_until <= ${now})
              AND (h.retry_at IS NULL OR h.retry_at <= ${now})))
          ORDER BY d.next_attempt_at, d.id
          LIMIT ${limit}
          ${lock})
      RETURNING *`.execute(this.db);
    return result.rows.sort((a, b) => a.id - b.id);
  }

  /** Records an attempt, if `worker` still holds the claim (a lease taken over is not overwritten). */
  async finish(id: number, worker: string, attempt: AttemptRecord): Promise<boolean> {
    const result = await this.db
      .updateTable('webhook_deliveries')
      .set({
        status: attempt.status,
        next_attempt_at: attempt.nextAttemptAt,
        claimed_until: null,
        // Asked for by hand once: if it failed, it is retried with its hook like any other.
        manual: 0,
        // claimed_by stays: the log shows which process made the last attempt.
        request_headers: attempt.requestHeaders,
        response_status: attempt.responseStatus,
        response_headers: attempt.responseHeaders,
        response_body: attempt.responseBody,
        error: attempt.error,
        duration_ms: attempt.durationMs,
        attempted_at: attempt.attemptedAt,
      })
      .where('id', '=', id)
      .where('status', '=', 'delivering')
      .where('claimed_by', '=', worker)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Gives claimed deliveries back (a stopping worker), as if they had never been claimed. */
  async release(ids: readonly number[], worker: string, now: number): Promise<void> {
    if (ids.length === 0) return;
    await this.db
      .updateTable('webhook_deliveries')
      .set((eb) => ({ ...unclaimed(eb), next_attempt_at: now }))
      .where('id', 'in', [...ids])
      .where('status', '=', 'delivering')
      .where('claimed_by', '=', worker)
      .execute();
  }

  /**
   * SQLite has one serving process: at its start, every claim was left by a process that is gone
   * (killed mid-delivery), so all of them are handed back at once instead of after their lease.
   * On PostgreSQL other processes may be delivering them: they wait out their lease.
   */
  async releaseAbandoned(): Promise<void> {
    if (this.dialect !== 'sqlite') return;
    await this.db
      .updateTable('webhook_deliveries')
      .set(unclaimed)
      .where('status', '=', 'delivering')
      .execute();
  }

  /** Updates a hook's failure counters (read and written in the caller's transaction). */
  async hookForUpdate(hookId: number): Promise<ProjectHookRow | undefined> {
    let query = this.db.selectFrom('project_hooks').selectAll().where('id', '=', hookId);
    if (this.dialect === 'postgres') query = query.forUpdate();
    return query.executeTakeFirst();
  }

  /**
   * Deliveries written before `before` and still waiting (their hook failing or disabled all that
   * time) are given up with `reason`, and stay in the log as finished at `now`.
   */
  async expire(before: number, now: number, reason: string): Promise<void> {
    await this.db
      .updateTable('webhook_deliveries')
      .set({ status: 'failed', error: reason, next_attempt_at: now })
      .where('status', '=', 'pending')
      .where('created_at', '<', before)
      .execute();
  }

  recent(hookId: number, limit: number, offset = 0): Promise<WebhookDeliveryRow[]> {
    return this.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('hook_id', '=', hookId)
      .orderBy('id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute();
  }

  countFor(hookId: number): Promise<number> {
    return countRows(this.db.selectFrom('webhook_deliveries').where('hook_id', '=', hookId));
  }

  delivery(hookId: number, id: number): Promise<WebhookDeliveryRow | undefined> {
    return rowBy(this.db, 'webhook_deliveries', { hook_id: hookId, id });
  }

  /**
   * Deliveries that finished before `before` are forgotten (GitLab keeps its hook logs 7 days).
   * A finished delivery's `next_attempt_at` is when it finished.
   */
  async prune(before: number): Promise<void> {
    await this.db
      .deleteFrom('webhook_deliveries')
      .where('status', 'in', ['delivered', 'failed'])
      .where('next_attempt_at', '<', before)
      .execute();
  }

  /** A user row as this transaction sees it (no cache: the outbox reads what the write left). */
  userRow(id: number): Promise<UserRow | undefined> {
    return rowBy(this.db, 'users', { id });
  }

  projectRow(id: number): Promise<ProjectRow | undefined> {
    return rowBy(this.db, 'projects', { id });
  }

  /** The project's newest push to a branch or a tag. */
  newestPush(projectId: number, refType: 'branch' | 'tag'): Promise<EventRow | undefined> {
    return this.db
      .selectFrom('events')
      .innerJoin('push_event_payloads', 'push_event_payloads.event_id', 'events.id')
      .selectAll('events')
      .where('events.project_id', '=', projectId)
      .where('push_event_payloads.ref_type', '=', refType)
      .orderBy('events.id', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  /**
   * The project's newest event of `action` on `targetType` (a test delivery's sample, as GitLab
   * takes the last push, issue, merge request or note); a null target type means pushes.
   */
  newestEvent(
    projectId: number,
    actions: readonly number[],
    targetType: string | null,
  ): Promise<EventRow | undefined> {
    let query = this.db
      .selectFrom('events')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('action', 'in', [...actions]);
    query = targetType === null ? query : query.where('target_type', '=', targetType);
    return query.orderBy('id', 'desc').limit(1).executeTakeFirst();
  }

  /** Deliveries neither delivered nor given up (the benchmark waits for none). */
  outstanding(): Promise<number> {
    return countRows(
      this.db.selectFrom('webhook_deliveries').where('status', 'in', ['pending', 'delivering']),
    );
  }
}

/** A claim handed back: the delivery is pending again, as if it had never been claimed. */
function unclaimed(eb: ExpressionBuilder<Database, 'webhook_deliveries'>) {
  return {
    status: 'pending',
    claimed_until: null,
    claimed_by: null,
    attempts: eb('attempts', '-', 1),
  } as const;
}
