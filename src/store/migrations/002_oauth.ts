/**
 * The OAuth provider and the web sign-in: applications, authorization grants (codes), access and
 * refresh tokens, and browser sessions. Every credential column holds a SHA-256 digest, never the
 * plaintext; lookups go through unique indexes on those digests.
 */
import type { Kysely } from 'kysely';
import { type MigrationContext, createIndex, tableWithId } from './helpers.js';

export async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
  await tableWithId(db, ctx, 'oauth_applications')
    .addColumn('uid', 'text', (c) => c.notNull().unique())
    .addColumn('secret_digest', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('redirect_uris', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('confidential', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('owner_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await createIndex(db, 'oauth_applications_owner', 'oauth_applications', ['owner_id']);

  // application_id carries no foreign key: deleting an application keeps its (revoked) grants and
  // tokens, so their holders get "Token was revoked" rather than an unknown-token answer.
  await tableWithId(db, ctx, 'oauth_access_grants')
    .addColumn('code_digest', 'text', (c) => c.notNull().unique())
    .addColumn('application_id', 'integer', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('code_challenge', 'text')
    .addColumn('code_challenge_method', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_in', 'integer', (c) => c.notNull())
    .addColumn('consumed_at', 'bigint')
    .addColumn('revoked_at', 'bigint')
    .execute();

  await tableWithId(db, ctx, 'oauth_access_tokens')
    .addColumn('token_digest', 'text', (c) => c.notNull().unique())
    .addColumn('refresh_digest', 'text', (c) => c.unique())
    .addColumn('application_id', 'integer')
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_in', 'integer', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .addColumn('grant_id', 'integer')
    .addColumn('family_id', 'text', (c) => c.notNull())
    .execute();
  await createIndex(db, 'oauth_access_tokens_family', 'oauth_access_tokens', ['family_id']);
  await createIndex(db, 'oauth_access_tokens_grant', 'oauth_access_tokens', ['grant_id']);
  await createIndex(db, 'oauth_access_tokens_application', 'oauth_access_tokens', [
    'application_id',
  ]);

  await tableWithId(db, ctx, 'web_sessions')
    .addColumn('id_digest', 'text', (c) => c.notNull().unique())
    .addColumn('user_id', 'integer', (c) => c.references('users.id'))
    .addColumn('pending_user_id', 'integer', (c) => c.references('users.id'))
    .addColumn('return_to', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await createIndex(db, 'web_sessions_expires', 'web_sessions', ['expires_at']);
}
