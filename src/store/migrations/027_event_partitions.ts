/**
 * PostgreSQL: `events` and `push_event_payloads` become declaratively partitioned by ranges of
 * event ids (issue 34, item 2; docs/operations.md says why ids rather than months).
 *
 * The primary keys stay `id` and `event_id`, so the payloads' foreign key to events, every listing
 * walk (ordered by id) and every read by id stay as they were, and a listing's id bounds prune the
 * partitions it cannot reach. Partitions hold `PARTITION_IDS` ids each and are named after their
 * lower bound (`events_0`, `events_1000000`, …); the background loop creates them ahead of the
 * sequence (store/events/partitions.ts, which keeps its own copy of the naming).
 *
 * The conversion keeps every row: each table is renamed aside, a partitioned table of the same
 * columns takes its name, partitions are created for every range that holds rows and for the
 * ranges ahead of the sequence, the rows are copied, and then the indexes, foreign keys and
 * triggers are created again from the definitions PostgreSQL printed for the old table. Triggers
 * come last, so copying rows neither counts them again in the tallies nor moves any counter. The
 * id sequence is kept (only its owner changes), so ids continue where they were.
 *
 * Row triggers on a partitioned table run on its partitions, where `TG_TABLE_NAME` is the
 * partition's name: migration 013's epoch function, which moves the deletions counter for events
 * only, is replaced by one that knows events' partitions by their names.
 *
 * SQLite keeps its tables: nothing to do there.
 */
import { type Kysely, sql } from 'kysely';
import { type MigrationContext, runSql } from './helpers.js';

const PARTITION_IDS = 1_000_000;
/** Ranges created beyond the one the sequence is in. */
const AHEAD = 2;

/** Each partitioned table and the column it is partitioned on. */
const TABLES: Array<[table: string, key: string]> = [
  ['events', 'id'],
  ['push_event_payloads', 'event_id'],
];

/** Migration 013's function, with events known by their partitions' names too. */
const EPOCH_FUNCTION = `CREATE OR REPLACE FUNCTION bump_listing_epoch() RETURNS trigger AS $$
DECLARE pid integer;
BEGIN
  IF TG_OP = 'DELETE' THEN
    EXECUTE format('SELECT ($1).%I', TG_ARGV[0]) INTO pid USING OLD;
  ELSE
    EXECUTE format('SELECT ($1).%I', TG_ARGV[0]) INTO pid USING NEW;
  END IF;
  INSERT INTO listing_epochs (project_id, epoch) VALUES (pid, 1), (0, 1)
    ON CONFLICT (project_id) DO UPDATE SET epoch = listing_epochs.epoch + 1;
  IF TG_TABLE_NAME = 'events' OR TG_TABLE_NAME ~ '^events_[0-9]+$' THEN
    UPDATE listing_epochs SET epoch = epoch + 1 WHERE project_id = -1;
  END IF;
  IF TG_OP = 'UPDATE' THEN
    -- A row moved to another project changes that project's listings too.
    EXECUTE format('SELECT ($1).%I', TG_ARGV[0]) INTO pid USING OLD;
    INSERT INTO listing_epochs (project_id, epoch) VALUES (pid, 1)
      ON CONFLICT (project_id) DO UPDATE SET epoch = listing_epochs.epoch + 1;
  END IF;
  RETURN NULL;
END $$ LANGUAGE plpgsql`;

interface Definitions {
  indexes: string[];
  triggers: string[];
  /** Foreign keys of the table itself, and of other tables onto it: [table, name, definition]. */
  foreignKeys: Array<[string, string, string]>;
}

async function definitions(db: Kysely<unknown>, table: string): Promise<Definitions> {
  const indexes = await sql<{ def: string }>`
    SELECT pg_get_indexdef(i.indexrelid) AS def FROM pg_index i
    WHERE i.indrelid = ${table}::regclass
      AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)
    ORDER BY i.indexrelid`.execute(db);
  const triggers = await sql<{ def: string }>`
    SELECT pg_get_triggerdef(t.oid) AS def FROM pg_trigger t
    WHERE t.tgrelid = ${table}::regclass AND NOT t.tgisinternal ORDER BY t.oid`.execute(db);
  const foreignKeys = await sql<{ tbl: string; name: string; def: string }>`
    SELECT c.conrelid::regclass::text AS tbl, c.conname AS name,
           pg_get_constraintdef(c.oid) AS def
    FROM pg_constraint c
    WHERE c.contype = 'f' AND (c.conrelid = ${table}::regclass OR c.confrelid = ${table}::regclass)
    ORDER BY c.oid`.execute(db);
  return {
    indexes: indexes.rows.map((r) => r.def),
    triggers: triggers.rows.map((r) => r.def),
    foreignKeys: foreignKeys.rows.map((r) => [r.tbl, r.name, r.def]),
  };
}

export async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
  if (ctx.dialect !== 'postgres') return;
  // In the order an append takes its locks (projects, then events), so a server still appending
  // waits instead of deadlocking: the foreign keys onto projects and users are made again below.
  await sql`LOCK TABLE projects, users IN SHARE ROW EXCLUSIVE MODE`.execute(db);
  await sql`LOCK TABLE events, push_event_payloads IN ACCESS EXCLUSIVE MODE`.execute(db);

  const found = new Map<string, Definitions>();
  for (const [table] of TABLES) found.set(table, await definitions(db, table));
  // Every foreign key that touches either table, once (the payloads' key onto events is in both).
  const foreignKeys = new Map<string, [string, string, string]>();
  for (const d of found.values()) {
    for (const fk of d.foreignKeys) foreignKeys.set(`${fk[0]}.${fk[1]}`, fk);
  }
  for (const [tbl, name] of foreignKeys.values()) {
    await runSql(db, `ALTER TABLE ${tbl} DROP CONSTRAINT ${name}`);
  }

  const sequence = (
    await sql<{ seq: string }>`
    SELECT pg_get_serial_sequence('events', 'id') AS seq`.execute(db)
  ).rows[0]!.seq;
  await runSql(db, `ALTER SEQUENCE ${sequence} OWNED BY NONE`);
  const next = (
    await sql<{ next: string }>`
    SELECT (CASE WHEN is_called THEN last_value + 1 ELSE last_value END)::text AS next
    FROM ${sql.raw(sequence)}`.execute(db)
  ).rows[0]!.next;
  const ranges = new Set<bigint>();
  const start = (BigInt(next) / BigInt(PARTITION_IDS)) * BigInt(PARTITION_IDS);
  for (let i = 0; i <= AHEAD; i++) ranges.add(start + BigInt(i * PARTITION_IDS));
  const used = await sql<{ lower: string }>`
    SELECT DISTINCT (id / ${PARTITION_IDS} * ${PARTITION_IDS})::text AS lower FROM events
    UNION SELECT DISTINCT (event_id / ${PARTITION_IDS} * ${PARTITION_IDS})::text
    FROM push_event_payloads`.execute(db);
  for (const r of used.rows) ranges.add(BigInt(r.lower));

  for (const [table, key] of TABLES) {
    const old = `${table}_unpartitioned`;
    await runSql(db, `ALTER TABLE ${table} RENAME TO ${old}`);
    await runSql(db, `ALTER TABLE ${old} RENAME CONSTRAINT ${table}_pkey TO ${old}_pkey`);
    // Their names are taken again by the partitioned table's; the old table goes below.
    const names = await sql<{ name: string }>`
      SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
      WHERE i.indrelid = ${old}::regclass
        AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)`.execute(db);
    for (const { name } of names.rows) await runSql(db, `DROP INDEX ${name}`);
    await runSql(
      db,
      `CREATE TABLE ${table} (LIKE ${old} INCLUDING DEFAULTS INCLUDING STORAGE)
         PARTITION BY RANGE (${key})`,
    );
    await runSql(db, `ALTER TABLE ${table} ADD CONSTRAINT ${table}_pkey PRIMARY KEY (${key})`);
    for (const lower of [...ranges].sort((a, b) => (a < b ? -1 : 1))) {
      const upper = lower + BigInt(PARTITION_IDS);
      await runSql(
        db,
        `CREATE TABLE ${table}_${lower} PARTITION OF ${table}
           FOR VALUES FROM (${lower}) TO (${upper})`,
      );
    }
    await runSql(db, `INSERT INTO ${table} SELECT * FROM ${old}`);
    for (const def of found.get(table)!.indexes) await runSql(db, def);
  }
  for (const [tbl, name, def] of foreignKeys.values()) {
    await runSql(db, `ALTER TABLE ${tbl} ADD CONSTRAINT ${name} ${def}`);
  }
  for (const [table] of [...TABLES].reverse()) {
    await runSql(db, `DROP TABLE ${table}_unpartitioned`);
  }
  for (const [table] of TABLES) {
    for (const def of found.get(table)!.triggers) await runSql(db, def);
  }
  await runSql(db, EPOCH_FUNCTION);
  await runSql(db, `ALTER SEQUENCE ${sequence} OWNED BY events.id`);
  await sql`ANALYZE events, push_event_payloads`.execute(db);
}
