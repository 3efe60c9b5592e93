/** Appending events, and reading them back by id. */
import type { EventRow, NewEvent, PushPayloadRow } from '../schema.js';
import type { EventContext } from './query.js';

const PROJECT_ACTIVITY_INTERVAL_MS = 60 * 60 * 1000;

/** Appends one event (and its push payload), inside the transaction of the change it records. */
export async function append(
  ctx: EventContext,
  event: NewEvent,
  push?: Omit<PushPayloadRow, 'event_id'>,
): Promise<EventRow> {
  const { db } = ctx;
  if (ctx.dialect === 'postgres' && !db.isTransaction) {
    // The events lock (migration 010), which makes ids visible in the order they are drawn, is
    // held until commit: outside a transaction it would end with the statement.
    return db.transaction().execute((trx) => append({ ...ctx, db: trx }, event, push));
  }
  // GitLab resets a project's last activity at most once an hour (Event#reset_project_activity).
  // It comes first: every row lock a write takes must come before the events lock.
  await db
    .updateTable('projects')
    .set({ last_activity_at: event.created_at })
    .where('id', '=', event.project_id)
    .where((eb) =>
      eb.or([
        eb('last_activity_at', 'is', null),
        eb('last_activity_at', '<', event.created_at - PROJECT_ACTIVITY_INTERVAL_MS),
      ]),
    )
    .execute();
  const row = await db.insertInto('events').values(event).returningAll().executeTakeFirstOrThrow();
  if (push) {
    await db
      .insertInto('push_event_payloads')
      .values({ ...push, event_id: row.id })
      .execute();
  }
  return row;
}

export async function byIds(ctx: EventContext, ids: readonly number[]): Promise<EventRow[]> {
  if (ids.length === 0) return [];
  return ctx.db
    .selectFrom('events')
    .selectAll()
    .where('id', 'in', [...ids])
    .execute();
}
