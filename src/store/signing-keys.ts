/** ID-token signing keys. Rows are never updated; generations only grow, races end in conflicts. */
import type { Kysely } from 'kysely';
import type { Database, OAuthSigningKeyRow } from './schema.js';

export interface NewSigningKey {
  kid: string;
  alg: string;
  generation: number;
  publicJwk: string;
  privateKey: string;
  createdAt: number;
}

export class SigningKeyStore {
  constructor(private readonly db: Kysely<Database>) {}

  all(): Promise<OAuthSigningKeyRow[]> {
    return this.db
      .selectFrom('oauth_signing_keys')
      .selectAll()
      .orderBy('alg')
      .orderBy('generation')
      .execute();
  }

  /** The newest generation of an algorithm: the key that signs. */
  active(alg: string): Promise<OAuthSigningKeyRow | undefined> {
    return this.db
      .selectFrom('oauth_signing_keys')
      .selectAll()
      .where('alg', '=', alg)
      .orderBy('generation', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  /**
   * Inserts the key unless this generation of its algorithm exists already (another process got
   * there first). True when this row was the one stored.
   */
  async insertGeneration(key: NewSigningKey): Promise<boolean> {
    const result = await this.db
      .insertInto('oauth_signing_keys')
      .values({
        kid: key.kid,
        alg: key.alg,
        generation: key.generation,
        public_jwk: key.publicJwk,
        private_key: key.privateKey,
        created_at: key.createdAt,
      })
      .onConflict((oc) => oc.columns(['alg', 'generation']).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  async delete(kids: readonly string[]): Promise<void> {
    if (kids.length === 0) return;
    await this.db
      .deleteFrom('oauth_signing_keys')
      .where('kid', 'in', [...kids])
      .execute();
  }
}
