/** OAuth applications (clients). Secrets are stored as digests only. */
import type { Kysely } from 'kysely';
import { deleteBy, rowBy, rowsBy, updateBy } from './rows.js';
import type { Database, OAuthApplicationRow } from './schema.js';

export interface NewApplication {
  uid: string;
  secretDigest: string;
  name: string;
  redirectUris: readonly string[];
  scopes: readonly string[];
  confidential: boolean;
  ownerId: number;
  createdAt: number;
  idTokenSignedResponseAlg?: string | null;
}

export class ApplicationStore {
  constructor(private readonly db: Kysely<Database>) {}

  byUid(uid: string): Promise<OAuthApplicationRow | undefined> {
    return rowBy(this.db, 'oauth_applications', { uid });
  }

  byId(id: number): Promise<OAuthApplicationRow | undefined> {
    return rowBy(this.db, 'oauth_applications', { id });
  }

  forOwner(ownerId: number): Promise<OAuthApplicationRow[]> {
    return rowsBy(this.db, 'oauth_applications', { owner_id: ownerId }, 'asc');
  }

  create(app: NewApplication): Promise<OAuthApplicationRow> {
    return this.db
      .insertInto('oauth_applications')
      .values({
        uid: app.uid,
        secret_digest: app.secretDigest,
        name: app.name,
        redirect_uris: app.redirectUris.join('\n'),
        scopes: app.scopes.join(' '),
        confidential: app.confidential ? 1 : 0,
        owner_id: app.ownerId,
        created_at: app.createdAt,
        id_token_signed_response_alg: app.idTokenSignedResponseAlg ?? null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  async setSecretDigest(id: number, ownerId: number, secretDigest: string): Promise<boolean> {
    const key = { id, owner_id: ownerId };
    return (
      (await updateBy(this.db, 'oauth_applications', key, { secret_digest: secretDigest })) > 0
    );
  }

  async delete(id: number, ownerId: number): Promise<boolean> {
    return (await deleteBy(this.db, 'oauth_applications', { id, owner_id: ownerId })) > 0;
  }
}
