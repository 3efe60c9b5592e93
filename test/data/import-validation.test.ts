import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ImportError, ImportService } from '../../src/data/import.js';
import { digest } from '../../src/domain/secrets.js';
import { TARGET_CLASSES } from '../../src/domain/vocabulary.js';
import { systemClock } from '../../src/services/clock.js';
import { type Store, openStore } from '../../src/store/store.js';
import { DIALECTS, type TestDatabase, createTestDatabase } from '../helpers/server.js';

/** A small valid file the bad lines are appended to (lines 1–8). */
const BASE = [
  { kind: 'user', id: 1, username: 'alice', name: 'Alice', email: 'alice@example.com', password: 'secret-pass' },
  { kind: 'user', id: 2, username: 'bob', name: 'Bob', email: 'bob@example.com' },
  { kind: 'project', id: 1, namespace: 'acme', path: 'api', name: 'API', description: '', visibility: 'public', creator_id: 1 },
  { kind: 'member', project_id: 1, user_id: 1, access_level: 50 },
  { kind: 'issue', id: 1, project_id: 1, iid: 1, title: 'Bug', author_id: 1, confidential: true, state: 'opened' },
  { kind: 'note', id: 1, project_id: 1, author_id: 1, body: 'hi', noteable_type: 'Issue', noteable_id: 1, system: false, created_at: '2026-01-02T10:00:00.000Z' },
  { kind: 'event', id: 1, project_id: 1, author_id: 1, action: 'commented', target_type: 'Note', target_id: 1, created_at: '2026-01-02T10:00:00.000Z' },
  { kind: 'personal_access_token', id: 1, user_id: 1, name: 't', token: 'glpat-abc', scopes: ['api'], expires_at: null, revoked: false },
].map((r) => JSON.stringify(r));

const event = (extra: Record<string, unknown>) =>
  JSON.stringify({ kind: 'event', id: 9, project_id: 1, author_id: 1, action: 'created', target_type: null, target_id: null, created_at: '2026-01-02T10:00:00Z', ...extra });
const push = (p: Record<string, unknown>) =>
  event({ action: 'pushed', push: { ref: 'refs/heads/main', before: 'a'.repeat(40), after: 'b'.repeat(40), commits: [], ...p } });

/** An OAuth application record with some fields replaced. */
const application = (fields: Record<string, unknown>) =>
  JSON.stringify({ kind: 'oauth_application', id: 1, uid: 'app-1', secret_digest: 'a'.repeat(64), name: 'CI', redirect_uris: ['https://app.example/cb'], scopes: ['api'], owner_id: 1, ...fields });

/** Bad line (appended as line 9) → the message reported for it. */
const CASES: [string, string][] = [
  ['{"kind":"user"', 'not valid JSON'],
  ['[1,2]', 'a record must be a JSON object'],
  ['{"kind":"group","id":1}', '"kind" must be one of user, project, member, milestone, issue, merge_request, approval, snippet, note, event, personal_access_token, oauth_application, star, follow'],
  [JSON.stringify({ kind: 'user', id: 3, username: 'carol', name: 'C', email: 'c@example.com', colour: 'red' }), 'unknown field "colour" for kind user'],
  // A misspelt field is named, not only the field it was meant to be.
  [JSON.stringify({ kind: 'user', id: 3, usename: 'carol', name: 'C', email: 'c@example.com' }), 'unknown field "usename" for kind user, and "username" is missing'],
  [JSON.stringify({ kind: 'user', id: 1, username: 'carol', name: 'C', email: 'c@example.com' }), 'user 1 already exists'],
  [JSON.stringify({ kind: 'user', id: 3, username: 'ALICE', name: 'C', email: 'c@example.com' }), 'username "ALICE" is already taken'],
  [JSON.stringify({ kind: 'user', id: 3, username: 'carol', name: 'C', email: 'not-an-email' }), '"email" is not an e-mail address'],
  [JSON.stringify({ kind: 'user', id: 3, username: 'carol', name: 'C', email: 'c@example.com', password: 'x', password_hash: 'y' }), 'give either "password" or "password_hash", not both'],
  [JSON.stringify({ kind: 'user', id: 3, username: 'carol', name: 'C', email: 'c@example.com', state: 'deleted' }), '"state" must be one of active, blocked'],
  [JSON.stringify({ kind: 'user', id: 3, username: 'carol', name: 'C', email: 'c@example.com', timezone: 'Mars/Olympus' }), '"timezone" must be an IANA time zone, e.g. Europe/Berlin'],
  [JSON.stringify({ kind: 'user', id: 3.5, username: 'carol', name: 'C', email: 'c@example.com' }), '"id" must be an integer from 1 to 2147483647'],
  [JSON.stringify({ kind: 'project', id: 2, namespace: 'acme', path: 'API', visibility: 'public', creator_id: 1 }), 'project path "acme/API" is already taken'],
  [JSON.stringify({ kind: 'project', id: 2, namespace: 'acme', path: 'web', visibility: 'secret', creator_id: 1 }), '"visibility" must be one of public, internal, private'],
  [JSON.stringify({ kind: 'project', id: 2, namespace: 'acme', path: 'web', visibility: 'public', creator_id: 7 }), 'creator_id 7 is not a known user'],
  [JSON.stringify({ kind: 'member', project_id: 1, user_id: 2, access_level: 35 }), '"access_level" must be one of 10, 20, 30, 40, 50'],
  [JSON.stringify({ kind: 'member', project_id: 1, user_id: 1, access_level: 30 }), 'user 1 is already a member of project 1'],
  [JSON.stringify({ kind: 'issue', id: 2, project_id: 1, iid: 1, title: 'Dup', author_id: 1 }), 'iid 1 is already used in project 1'],
  [JSON.stringify({ kind: 'note', id: 2, project_id: 1, author_id: 1, body: 'x', noteable_type: 'MergeRequest', noteable_id: 1, created_at: '2026-01-02T10:00:00Z' }), 'noteable MergeRequest 1 does not exist'],
  [JSON.stringify({ kind: 'note', id: 2, project_id: 1, author_id: 1, body: 'x', noteable_type: 'Issue', noteable_id: 1 }), '"created_at" is missing'],
  [event({ project_id: 5 }), 'project_id 5 is not a known project'],
  [event({ author_id: 9 }), 'author_id 9 is not a known user'],
  [event({ id: 1 }), 'event 1 already exists'],
  [event({ action: 'starred' }), '"action" must be one of created, updated, closed, reopened, pushed, commented, merged, joined, left, destroyed, expired, approved'],
  [event({ target_type: 'Epic', target_id: 1 }), `"target_type" must be null or one of ${TARGET_CLASSES.join(', ')}`],
  [event({ target_type: 'Issue' }), '"target_type" and "target_id" must both be set or both be null'],
  [event({ target_type: 'Issue', target_id: 4 }), 'target Issue 4 does not exist'],
  [event({ created_at: '2026-02-30T10:00:00Z' }), '"created_at" must be an ISO 8601 time with a zone, e.g. 2026-01-02T10:00:00.000Z'],
  [event({ created_at: '2026-01-02 10:00' }), '"created_at" must be an ISO 8601 time with a zone, e.g. 2026-01-02T10:00:00.000Z'],
  [event({ action: 'pushed' }), 'a "pushed" event needs a "push" object'],
  [push({ before: 'xyz' }), '"push.before" must be 40 lowercase hex digits or null'],
  [push({ ref: 'refs/tags/v1', ref_type: 'branch' }), '"push.ref" refs/tags/v1 contradicts "push.ref_type" branch'],
  [push({ commits: [{ id: 'a', message: 'm', timestamp: 't', url: 'u' }] }), '"push.commits[0].author" is missing'],
  [push({ commit_count: 0, commits: [{ id: 'a', message: 'm', timestamp: 't', url: 'u', author: { name: 'n', email: 'e' } }] }), '"push.commit_count" is smaller than the number of commits'],
  [JSON.stringify({ kind: 'personal_access_token', id: 2, user_id: 1, name: 't', token: 'glpat-abc', scopes: ['api'] }), 'this token (same digest) already exists'],
  [JSON.stringify({ kind: 'personal_access_token', id: 2, user_id: 1, name: 't', token: 'x', scopes: ['sudo'] }), '"scopes" has unknown scope sudo (allowed: api, read_api, read_user, write_repository)'],
  [JSON.stringify({ kind: 'personal_access_token', id: 2, user_id: 1, name: 't', token: 'x', scopes: 'api', expires_at: '2026-13-01' }), '"expires_at" must be a date YYYY-MM-DD'],
  [application({ secret: 'plain' }), 'unknown field "secret" for kind oauth_application'],
  [application({ uid: 'a b' }), '"uid" must be made of A-Z a-z 0-9 _ -'],
  [application({ secret_digest: 'xyz' }), '"secret_digest" must be 64 lowercase hex digits (SHA-256)'],
  [application({ redirect_uris: [] }), '"redirect_uris" must list at least one URI'],
  [application({ owner_id: 99 }), 'owner_id 99 is not a known user'],
  [JSON.stringify({ kind: 'star', user_id: 1, project_id: 7 }), 'project_id 7 is not a known project'],
  [JSON.stringify({ kind: 'star', user_id: 8, project_id: 1 }), 'user_id 8 is not a known user'],
  [JSON.stringify({ kind: 'follow', follower_id: 1, followee_id: 1 }), 'follower_id and followee_id must differ (nobody follows themselves)'],
  [JSON.stringify({ kind: 'follow', follower_id: 1, followee_id: 5 }), 'followee_id 5 is not a known user'],
  [JSON.stringify({ kind: 'follow', follower_id: 1, following: 2 }), 'unknown field "following" for kind follow, and "followee_id" is missing'],
];

for (const dialect of DIALECTS) {
  describe(`import validation (${dialect})`, () => {
    let database: TestDatabase;
    let store: Store;
    let importer: ImportService;

    before(async () => {
      database = await createTestDatabase(dialect);
      store = await openStore(database.url);
      importer = new ImportService(store, systemClock);
    });
    after(async () => {
      await store.close();
      await database.drop();
    });

    const counts = async () =>
      Promise.all(
        (['users', 'projects', 'issues', 'notes', 'events', 'personal_access_tokens'] as const).map(
          async (t) =>
            Number(
              (await store.db.selectFrom(t).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n,
            ),
        ),
      );

    it('rejects each bad line with its line number and reason, writing nothing', async () => {
      for (const [line, message] of CASES) {
        await assert.rejects(
          importer.importText([...BASE, line].join('\n')),
          (error: unknown) => {
            assert.ok(error instanceof ImportError, String(error));
            assert.deepEqual(error.problems, [{ line: 9, message }], line);
            return true;
          },
        );
      }
      assert.deepEqual(await counts(), [0, 0, 0, 0, 0, 0]);
    });

    it('refuses a second identical star or follow, by line number', async () => {
      const star = JSON.stringify({ kind: 'star', user_id: 2, project_id: 1 });
      const follow = JSON.stringify({ kind: 'follow', follower_id: 2, followee_id: 1 });
      await assert.rejects(importer.importText([...BASE, star, follow, star, follow].join('\n')), (error: ImportError) => {
        assert.deepEqual(error.problems, [
          { line: 11, message: 'user 2 already starred project 1' },
          { line: 12, message: 'user 2 already follows user 1' },
        ]);
        return true;
      });
    });

    it('reports several bad lines at once, by line number', async () => {
      const text = ['', BASE[0], '{oops', BASE[1], JSON.stringify({ kind: 'member', project_id: 3, user_id: 1, access_level: 10 })].join('\n');
      await assert.rejects(importer.importText(text), (error: ImportError) => {
        assert.deepEqual(error.problems, [
          { line: 3, message: 'not valid JSON' },
          { line: 5, message: 'project_id 3 is not a known project' },
        ]);
        assert.equal(error.message, 'line 3: not valid JSON\nline 5: project_id 3 is not a known project');
        return true;
      });
    });

    it('imports the valid file, hashing the password and the token, deriving issue_id', async () => {
      const summary = await importer.importText(BASE.join('\n') + '\n');
      assert.equal(summary.records, 8);
      assert.equal(summary.counts.event, 1);
      assert.deepEqual(await counts(), [2, 1, 1, 1, 1, 1]);
      const alice = await store.users.byUsername('alice');
      assert.match(alice!.password_hash!, /^scrypt\$/);
      const token = await store.db.selectFrom('personal_access_tokens').selectAll().executeTakeFirstOrThrow();
      assert.equal(token.token_digest, digest('glpat-abc'));
      const ev = await store.db.selectFrom('events').selectAll().executeTakeFirstOrThrow();
      assert.equal(ev.issue_id, 1, 'a note on an issue marks the event with that issue');
    });

    it('checks references against rows already in the database', async () => {
      await assert.rejects(importer.importText(BASE[0]!), (error: ImportError) => {
        assert.deepEqual(error.problems, [{ line: 1, message: 'user 1 already exists' }]);
        return true;
      });
      const more = event({ id: 2, target_type: 'Issue', target_id: 1 });
      const summary = await importer.importText(more);
      assert.equal(summary.counts.event, 1);
      const ev = await store.db.selectFrom('events').selectAll().where('id', '=', 2).executeTakeFirstOrThrow();
      assert.equal(ev.issue_id, 1);
    });
  });
}
