/**
 * ID-token signing keys: rotation keeps old tokens verifiable until they expire, new tokens use
 * the new kid; private keys are sealed with the configured key-encryption key; two processes
 * starting at once over one database end with one active key per algorithm.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { KEY_RETENTION_MS } from '../../src/domain/signing-keys.js';
import { buildServer } from '../../src/server.js';
import { openStore } from '../../src/store/store.js';
import { loadConfig } from '../../src/config.js';
import { SigningKeyStore } from '../../src/store/signing-keys.js';
import { DIALECTS, createTestDatabase } from '../helpers/server.js';
import { pulsegate } from '../cli/run.js';
import { type OAuthWorld, get, startOAuthServer, signedInBrowser } from './support.js';
import {
  authorize,
  decodeJwt,
  discover,
  exchange,
  registerOidcApp,
  useRealTime,
} from './oidc-support.js';

const KEK = 'k'.repeat(16) + 'e'.repeat(16) + 'y'.repeat(12);

async function jwks(world: OAuthWorld) {
  return (await get(world.server, '/oauth/discovery/keys')).body as {
    keys: Array<{ kid: string; alg: string }>;
  };
}

for (const dialect of DIALECTS) {
  describe(`signing keys (${dialect})`, () => {
    let world: OAuthWorld;
    before(async () => {
      world = await startOAuthServer({ dialect, config: { keyEncryptionKey: KEK } });
      useRealTime(world);
    });
    after(() => world.close());

    it('rotation: old tokens still verify (old kid published), new tokens use the new kid', async () => {
      const app = await registerOidcApp(world);
      const browser = await signedInBrowser(world);
      const signIn = async () => {
        // A fresh client each time, as a relying party meeting the new key for the first time.
        const config = await discover(world, app);
        const { callback, checks } = await authorize(config, browser);
        return (await exchange(config, callback, checks)).id_token!;
      };
      const before = await signIn();
      const oldKid = decodeJwt(before).header.kid as string;
      const added = await world.server.services.oauth.signingKeys.rotate();
      assert.equal(added.length, 2);
      const after = await signIn();
      const newKid = decodeJwt(after).header.kid as string;
      assert.notEqual(newKid, oldKid);
      assert.ok(added.includes(newKid));
      const set = await jwks(world);
      assert.deepEqual(
        set.keys.filter((k) => k.alg === 'RS256').map((k) => k.kid),
        [oldKid, newKid],
      );
      // The token signed before the rotation verifies against the published set.
      const verified = await jwtVerify(before, createLocalJWKSet(set as never), {
        issuer: world.server.url,
        audience: app.uid,
      });
      assert.equal(verified.protectedHeader.kid, oldKid);

      // Once every token of the old key has expired, the key leaves the JWKS and the database.
      world.server.clock.advance(KEY_RETENTION_MS);
      assert.ok(!(await jwks(world)).keys.some((k) => k.kid === oldKid));
      await world.server.services.oauth.signingKeys.rotate();
      const stored = await new SigningKeyStore(world.server.store.db).all();
      assert.ok(!stored.some((k) => k.kid === oldKid));
      useRealTime(world);
    });

    it('private keys are sealed with the key-encryption key; a wrong or missing one refuses to start', async () => {
      const rows = await new SigningKeyStore(world.server.store.db).all();
      assert.ok(rows.length >= 2);
      for (const row of rows) {
        assert.match(row.private_key, /^sealed\.v1\./);
        assert.doesNotMatch(row.private_key, /PRIVATE KEY/);
        assert.ok(!Buffer.from(row.private_key.split('.')[3] ?? '', 'base64url').includes('BEGIN'));
      }
      for (const keyEncryptionKey of ['w'.repeat(40), null]) {
        const store = await openStore(world.server.config.databaseUrl);
        try {
          await assert.rejects(
            buildServer({ config: { ...world.server.config, keyEncryptionKey }, store }),
            keyEncryptionKey === null ? /is encrypted/ : /wrong key-encryption key/,
          );
        } finally {
          await store.close();
        }
      }
    });

    it('two processes starting at once over an empty database end with one key per algorithm', async () => {
      const database = await createTestDatabase(dialect);
      const stores = [await openStore(database.url), await openStore(database.url)];
      try {
        const config = loadConfig(
          { databaseUrl: database.url, port: 0, logLevel: 'silent', rateLimit: 0 },
          {},
        );
        const servers = await Promise.all(stores.map((store) => buildServer({ config, store })));
        const rows = await new SigningKeyStore(stores[0]!.db).all();
        assert.deepEqual(rows.map((r) => r.alg).sort(), ['ES256', 'RS256']);
        const kids = await Promise.all(
          servers.map(
            async ({ services }) => (await services.oauth.signingKeys.signingKey('RS256')).kid,
          ),
        );
        assert.equal(kids[0], kids[1]);
        await Promise.all(servers.map(({ app }) => app.close()));
      } finally {
        for (const store of stores) await store.close();
        await database.drop();
      }
    });

    it('the unique generation decides a race: the second insert of a generation is refused', async () => {
      const keys = new SigningKeyStore(world.server.store.db);
      const row = (await keys.all()).at(-1)!;
      const next = {
        alg: row.alg,
        generation: row.generation + 100,
        publicJwk: '{}',
        privateKey: 'x',
        createdAt: 0,
      };
      assert.equal(await keys.insertGeneration({ ...next, kid: 'race-a' }), true);
      assert.equal(await keys.insertGeneration({ ...next, kid: 'race-b' }), false);
      await keys.delete(['race-a']);
    });
  });
}

describe('pulsegate keys rotate', () => {
  it('adds keys from the command line; a running server signs with them from then on', async () => {
    const world = await startOAuthServer();
    try {
      const url = world.server.config.databaseUrl;
      const before = await world.server.services.oauth.signingKeys.signingKey('RS256');
      const run = await pulsegate(['keys', 'rotate', '--database-url', url]);
      assert.equal(run.code, 0, run.stderr);
      const kids = /new signing keys: (\S+), (\S+)/.exec(run.stdout);
      assert.ok(kids, run.stdout);
      const after = await world.server.services.oauth.signingKeys.signingKey('RS256');
      assert.notEqual(after.kid, before.kid);
      assert.ok([kids[1], kids[2]].includes(after.kid));
      const list = await pulsegate(['keys', 'list', '--database-url', url]);
      assert.match(list.stdout, new RegExp(`${before.kid}  RS256  \\S+  published`));
      assert.match(list.stdout, new RegExp(`${after.kid}  RS256  \\S+  active`));
      const bad = await pulsegate(['keys', 'spin', '--database-url', url]);
      assert.equal(bad.code, 2);
    } finally {
      await world.close();
    }
  });
});
