/** Browser sessions, looked up by the digest of the cookie value. */
import type { Kysely } from 'kysely';
import { deleteBy, rowBy } from './rows.js';
import type { Database, WebSessionRow } from './schema.js';

export class SessionStore {
  constructor(private readonly db: Kysely<Database>) {}

  create(session: {
    idDigest: string;
    userId: number | null;
    pendingUserId: number | null;
    createdAt: number;
    expiresAt: number;
  }): Promise<WebSessionRow> {
    return this.db
      .insertInto('web_sessions')
      .values({
        id_digest: session.idDigest,
        user_id: session.userId,
        pending_user_id: session.pendingUserId,
        created_at: session.createdAt,
        expires_at: session.expiresAt,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  byDigest(idDigest: string): Promise<WebSessionRow | undefined> {
    return rowBy(this.db, 'web_sessions', { id_digest: idDigest });
  }

  async delete(id: number): Promise<void> {
    await deleteBy(this.db, 'web_sessions', { id });
  }

  async deleteExpired(now: number): Promise<void> {
    await this.db.deleteFrom('web_sessions').where('expires_at', '<=', now).execute();
  }
}
