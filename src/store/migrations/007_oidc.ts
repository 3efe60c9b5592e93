/**
 * OpenID Connect and the device flow: signing keys (private halves sealed when a key-encryption
 * key is configured), device authorizations (codes stored as digests), and what an ID token needs
 * to know about a grant — its nonce, when the user signed in, and the client's signature algorithm.
 */
import type { Kysely } from 'kysely';
import { type MigrationContext, createIndex, tableWithId } from './helpers.js';

export async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
  // One row per key. (alg, generation) is unique: two processes generating the first key, or two
  // rotations racing, insert the same generation and exactly one wins.
  await tableWithId(db, ctx, 'oauth_signing_keys')
    .addColumn('kid', 'text', (c) => c.notNull().unique())
    .addColumn('alg', 'text', (c) => c.notNull())
    .addColumn('generation', 'integer', (c) => c.notNull())
    .addColumn('public_jwk', 'text', (c) => c.notNull())
    .addColumn('private_key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await createIndex(
    db,
    'oauth_signing_keys_generation',
    'oauth_signing_keys',
    ['alg', 'generation'],
    { unique: true },
  );

  await tableWithId(db, ctx, 'oauth_device_grants')
    .addColumn('device_code_digest', 'text', (c) => c.notNull().unique())
    .addColumn('user_code_digest', 'text', (c) => c.notNull().unique())
    .addColumn('application_id', 'integer', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_in', 'integer', (c) => c.notNull())
    .addColumn('poll_interval', 'integer', (c) => c.notNull())
    .addColumn('last_polled_at', 'bigint')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.references('users.id'))
    .addColumn('auth_time', 'bigint')
    .addColumn('decided_at', 'bigint')
    .addColumn('consumed_at', 'bigint')
    .addColumn('family_id', 'text')
    .execute();
  await createIndex(db, 'oauth_device_grants_created', 'oauth_device_grants', ['created_at']);

  await db.schema.alterTable('oauth_access_grants').addColumn('nonce', 'text').execute();
  await db.schema.alterTable('oauth_access_grants').addColumn('auth_time', 'bigint').execute();
  await db.schema.alterTable('oauth_access_tokens').addColumn('auth_time', 'bigint').execute();
  await db.schema
    .alterTable('oauth_applications')
    .addColumn('id_token_signed_response_alg', 'text')
    .execute();
}
