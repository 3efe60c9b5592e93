/**
 * Hook tokens were kept in clear. From here on the column holds an envelope (domain/key-sealing):
 * `sealed.v1.…` (AES-256-GCM under the key-encryption key, bound to the hook's URL) or `plain.v1.…`
 * when no key-encryption key is configured. The key-encryption key is configuration, never in the
 * database, so a migration (also run by `pulsegate migrate`, which may not be given it) cannot
 * seal: it wraps every clear token in the plain envelope, so that no stored value is ambiguous,
 * and the webhook service seals plain envelopes at start whenever a key-encryption key is set.
 */
import { type Kysely, sql } from 'kysely';
import { seal } from '../../domain/key-sealing.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  const rows = await sql<{ id: number; token: string }>`
    SELECT id, token FROM project_hooks WHERE token IS NOT NULL`.execute(db);
  for (const { id, token } of rows.rows) {
    // An empty token sends no header: it is no token.
    const envelope = token === '' ? null : seal(token, null, '');
    await sql`UPDATE project_hooks SET token = ${envelope} WHERE id = ${id}`.execute(db);
  }
}
