/**
 * Retention: deleting the events older than a cutoff, a bounded batch per transaction, with what
 * depends on them. Deleting events is a change the listing caches already follow: triggers on
 * `events` take the rows out of the tallies (migrations 017, 018), move the listing epochs and
 * the deletions counter (migration 013) and the listing version (009), all in the deleting
 * transaction, so a reader sees a batch entirely or not at all, and every entry under an older
 * deletions counter starts over. SQLite never gives a pruned id again (migration 020).
 *
 * One batch is one short transaction: a writer waits for at most one batch (SQLite has one writer
 * at a time; on PostgreSQL the tally triggers take the events lock). `pruneBefore` is the one
 * entry, so another way of removing old events (whole partitions) can sit beside the batch.
 */
import { type Kysely, sql } from 'kysely';
import type { Database } from '../schema.js';
import type { EventContext } from './query.js';

/** Rows removed, per table. */
export interface Pruned {
  events: number;
  pushPayloads: number;
  webhookDeliveries: number;
}

/** What a prune would remove, and the oldest event it keeps (null: none left). */
export interface PrunePlan extends Pruned {
  oldestKept: number | null;
}

export interface PruneOptions {
  /**
   * Finished webhook deliveries of pruned events go with them once their own retention has
   * passed (finished before this instant); younger ones stay until the webhook worker's prune.
   */
  deliveriesFinishedBefore: number;
}

const FINISHED = ['delivered', 'failed'];

/**
 * One batch: the oldest `batchSize` events created before `cutoff` (by time, then id), their
 * push payloads and finished deliveries, in one transaction. Fewer than `batchSize` events
 * removed means nothing older is left.
 */
export async function pruneBefore(
  ctx: EventContext,
  cutoff: number,
  batchSize: number,
  options: PruneOptions,
): Promise<Pruned> {
  if (!ctx.db.isTransaction) {
    return ctx.db
      .transaction()
      .execute((trx) => pruneIn(trx, ctx.dialect, cutoff, batchSize, options));
  }
  return pruneIn(ctx.db, ctx.dialect, cutoff, batchSize, options);
}

async function pruneIn(
  db: Kysely<Database>,
  dialect: EventContext['dialect'],
  cutoff: number,
  batchSize: number,
  { deliveriesFinishedBefore }: PruneOptions,
): Promise<Pruned> {
  const rows = await db
    .selectFrom('events')
    .select('id')
    .where('created_at', '<', cutoff)
    .orderBy('created_at')
    .orderBy('id')
    .limit(batchSize)
    .execute();
  if (rows.length === 0) return { events: 0, pushPayloads: 0, webhookDeliveries: 0 };
  const ids = rows.map((row) => row.id);
  if (dialect === 'postgres') await lockEpochs(db, ids);
  const deliveries = await db
    .deleteFrom('webhook_deliveries')
    .where('event_id', 'in', ids)
    .where('status', 'in', FINISHED)
    .where('next_attempt_at', '<', deliveriesFinishedBefore)
    .executeTakeFirst();
  const payloads = await db
    .deleteFrom('push_event_payloads')
    .where('event_id', 'in', ids)
    .executeTakeFirst();
  const events = await db.deleteFrom('events').where('id', 'in', ids).executeTakeFirst();
  return {
    events: Number(events.numDeletedRows),
    pushPayloads: Number(payloads.numDeletedRows),
    webhookDeliveries: Number(deliveries.numDeletedRows),
  };
}

/**
 * PostgreSQL: the listing epochs a batch's delete triggers will move, taken first, the batch's
 * projects in ascending order and then the all-projects and deletions rows. Every other writer
 * of epochs (a membership, a visibility, an issue's confidentiality: migration 013) takes its
 * project's row and then the all-projects row; the triggers of a batch spanning projects would
 * otherwise take project rows after the all-projects row, and a membership change in one of them
 * meanwhile would deadlock with it. Moving an epoch once more than needed costs nothing.
 */
async function lockEpochs(db: Kysely<Database>, ids: readonly number[]): Promise<void> {
  const projects = await db
    .selectFrom('events')
    .select('project_id')
    .distinct()
    .where('id', 'in', [...ids])
    .orderBy('project_id')
    .execute();
  for (const projectId of [...projects.map((p) => p.project_id), 0, -1]) {
    await db
      .insertInto('listing_epochs')
      .values({ project_id: projectId, epoch: 1 })
      .onConflict((oc) =>
        oc.column('project_id').doUpdateSet({ epoch: sql`listing_epochs.epoch + 1` }),
      )
      .execute();
  }
}

/** What pruning everything before `cutoff` would remove (one snapshot), nothing deleted. */
export async function prunePlan(
  ctx: EventContext,
  cutoff: number,
  options: PruneOptions,
): Promise<PrunePlan> {
  const old = ctx.db.selectFrom('events').select('id').where('created_at', '<', cutoff);
  const n = sql<number | string>`count(*)`;
  const row = await ctx.db
    .selectNoFrom((eb) => [
      eb.selectFrom('events').select(n.as('n')).where('created_at', '<', cutoff).as('events'),
      eb
        .selectFrom('push_event_payloads')
        .select(n.as('n'))
        .where('event_id', 'in', old)
        .as('payloads'),
      eb
        .selectFrom('webhook_deliveries')
        .select(n.as('n'))
        .where('event_id', 'in', old)
        .where('status', 'in', FINISHED)
        .where('next_attempt_at', '<', options.deliveriesFinishedBefore)
        .as('deliveries'),
      eb
        .selectFrom('events')
        .select((e) => e.fn.min('created_at').as('t'))
        .where('created_at', '>=', cutoff)
        .as('oldest'),
    ])
    .executeTakeFirstOrThrow();
  return {
    events: Number(row.events ?? 0),
    pushPayloads: Number(row.payloads ?? 0),
    webhookDeliveries: Number(row.deliveries ?? 0),
    oldestKept: row.oldest === null || row.oldest === undefined ? null : Number(row.oldest),
  };
}
