/** Server-generated secrets by name, shared by every process over the database. */
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

export class SecretStore {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * The secret called `name`. The first process to ask stores its candidate; everyone else, now
   * and later, gets that one (the insert is a no-op on conflict, so concurrent starts agree).
   */
  async getOrCreate(name: string, candidate: string, now: number): Promise<string> {
    await this.db
      .insertInto('server_secrets')
      .values({ name, value: candidate, created_at: now })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
    const row = await this.db
      .selectFrom('server_secrets')
      .select('value')
      .where('name', '=', name)
      .executeTakeFirstOrThrow();
    return row.value;
  }
}
