/**
 * 64-bit ids on PostgreSQL for every table that grows with activity (issue 34, item 3).
 *
 * `serial` columns are 32-bit and their sequences stop at 2^31 − 1: a server that records a few
 * hundred events a second runs out within a few years, and then every write fails (GitLab.com's
 * events reached 47 % of the range and needed the same migration). The tables below grow with
 * activity, not with the number of people or projects; each id column becomes `bigint`, with its
 * sequence and every column that holds one of its ids. Users, projects, memberships, milestones,
 * snippets, hooks and applications stay 32-bit: they grow with people and projects, and GitLab's
 * own API keeps 32-bit semantics for them. docs/operations.md lists the tables and why.
 *
 * SQLite's integers are 64-bit already: nothing to do there.
 *
 * `ALTER COLUMN … TYPE` refuses a column a trigger's WHEN clause names (issues' confidential
 * tallies watch `id`): such triggers are dropped and created again from their own definition.
 */
import { type Kysely, sql } from 'kysely';
import { type MigrationContext, runSql } from './helpers.js';

/** Columns made `bigint`, per table: the growing ids and the columns that hold them. */
export const BIGINT_COLUMNS: Record<string, string[]> = {
  events: ['id', 'target_id', 'issue_id'],
  push_event_payloads: ['event_id'],
  notes: ['id', 'noteable_id'],
  issues: ['id'],
  merge_requests: ['id'],
  merge_request_approvals: ['merge_request_id'],
  webhook_deliveries: ['id', 'event_id'],
  idempotency_keys: ['id'],
  web_sessions: ['id'],
  oauth_access_grants: ['id'],
  oauth_access_tokens: ['id', 'grant_id'],
  oauth_device_grants: ['id'],
};

export async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
  if (ctx.dialect !== 'postgres') return;
  for (const [table, columns] of Object.entries(BIGINT_COLUMNS)) {
    const triggers = await sql<{ name: string; definition: string }>`
      SELECT DISTINCT t.tgname AS name, pg_get_triggerdef(t.oid) AS definition
      FROM pg_trigger t
      JOIN pg_depend d ON d.classid = 'pg_trigger'::regclass AND d.objid = t.oid
      JOIN pg_attribute a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid
      WHERE d.refobjid = ${table}::regclass AND a.attname = ANY(${columns}::text[])
        AND NOT t.tgisinternal`.execute(db);
    for (const t of triggers.rows) {
      await runSql(db, `DROP TRIGGER ${t.name} ON ${table}`);
    }
    const alters = columns.map((c) => `ALTER COLUMN ${c} TYPE bigint`).join(', ');
    await runSql(db, `ALTER TABLE ${table} ${alters}`);
    for (const column of columns) {
      const seq = await sql<{ seq: string | null }>`
        SELECT pg_get_serial_sequence(${table}, ${column}) AS seq`.execute(db);
      const name = seq.rows[0]?.seq;
      if (name) await runSql(db, `ALTER SEQUENCE ${name} AS bigint`);
    }
    for (const t of triggers.rows) await runSql(db, t.definition);
  }
}
