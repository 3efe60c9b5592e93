import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { prepareDemo } from '../../src/cli/demo.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';

for (const dialect of DIALECTS) {
  describe(`npm start (serve --demo) preparation (${dialect})`, () => {
    let server: TestServer;
    let said = '';
    let banner = '';

    before(async () => {
      server = await startServer({
        dialect,
        seed: async (store) => {
          const config = { externalUrl: 'https://pulse.example.test' } as never;
          banner = await prepareDemo(
            store,
            { now: () => Date.UTC(2026, 0, 15) },
            config,
            (t) => (said += t),
          );
        },
      });
    });
    after(() => server.close());

    const tokenOf = (text: string) => /^ {2}(glpat-[A-Za-z0-9_-]+)$/m.exec(text)?.[1];

    it('loads the demo data into the empty database and says so', () => {
      assert.match(
        said,
        /^The database is empty: loading the demo data set…\nloaded demo data: [\d,]+ records in [\d.]+ s .*event 2,\d{3}, star \d+, follow \d+\n$/,
      );
    });

    it('prints a fresh api token for alice, expiring in 7 days, with curl lines that work, a write among them', async () => {
      const token = tokenOf(banner);
      assert.ok(token, banner);
      assert.match(
        banner,
        /Personal access token \(scope api, expires 2026-01-22\), shown only once:/,
      );
      const curls = banner.split('\n').filter((l) => l.startsWith('  curl '));
      assert.equal(curls.length, 5);
      let wrote: { title: string } | undefined;
      for (const line of curls) {
        const url = /"(https:\/\/pulse\.example\.test[^"]+)"$/
          .exec(line)![1]!
          .replace('https://pulse.example.test', server.url);
        assert.ok(line.includes(`--header "PRIVATE-TOKEN: ${token}"`));
        const data = /--data "([^"]+)"/.exec(line)?.[1];
        if (data) {
          // curl --data sends a form body with POST.
          const res = await fetch(url, {
            method: 'POST',
            headers: {
              'PRIVATE-TOKEN': token,
              'content-type': 'application/x-www-form-urlencoded',
            },
            body: data.replace(/ /g, '+'),
          });
          assert.equal(res.status, 201, url);
          wrote = (await res.json()) as { title: string };
          continue;
        }
        const res = await fetch(url, { headers: { 'PRIVATE-TOKEN': token } });
        assert.equal(res.status, 200, url);
        const list = (await res.json()) as { action_name: string; target_title: string }[];
        assert.ok(list.length > 0, url);
        // The listing printed after the write shows that write's event first.
        if (wrote)
          assert.deepEqual([list[0]!.action_name, list[0]!.target_title], ['opened', wrote.title]);
      }
      assert.equal(wrote?.title, 'My first issue');
      const row = await server.store.db
        .selectFrom('personal_access_tokens')
        .selectAll()
        .executeTakeFirstOrThrow();
      assert.equal(row.name, 'npm start demo token');
      assert.equal(row.scopes, 'api');
    });

    it("points the demo pushes' commit URLs at the instance's external URL", async () => {
      const payloads = await server.store.db
        .selectFrom('push_event_payloads')
        .select('commits')
        .execute();
      const urls = payloads.flatMap((p) =>
        (JSON.parse(p.commits) as { url: string }[]).map((c) => c.url),
      );
      assert.ok(urls.length > 100);
      for (const url of urls) {
        assert.match(
          url,
          /^https:\/\/pulse\.example\.test\/[a-z0-9-]+(\/[a-z0-9-]+)+\/-\/commit\/[0-9a-f]{40}$/,
        );
      }
    });

    it('on the next start keeps the data, revokes the previous demo token and mints one', async () => {
      const first = tokenOf(banner)!;
      const before = await fetch(`${server.url}/api/v4/events`, {
        headers: { 'PRIVATE-TOKEN': first },
      });
      assert.equal(before.status, 200);
      said = '';
      const again = await prepareDemo(
        server.store,
        server.clock,
        server.config,
        (t) => (said += t),
      );
      assert.equal(said, '');
      const second = tokenOf(again)!;
      assert.ok(second);
      assert.notEqual(second, first);
      const old = await fetch(`${server.url}/api/v4/events`, {
        headers: { 'PRIVATE-TOKEN': first },
      });
      assert.equal(old.status, 401);
      assert.deepEqual(await old.json(), {
        error: 'invalid_token',
        error_description: 'Token was revoked. You have to re-authorize from the user.',
      });
      const fresh = await fetch(`${server.url}/api/v4/events`, {
        headers: { 'PRIVATE-TOKEN': second },
      });
      assert.equal(fresh.status, 200);
      // A third start: still exactly one active demo token.
      await prepareDemo(server.store, server.clock, server.config, () => {});
      const rows = await server.store.db
        .selectFrom('personal_access_tokens')
        .select(['name', 'revoked'])
        .orderBy('id')
        .execute();
      assert.deepEqual(
        rows.map((r) => [r.name, Number(r.revoked)]),
        [
          ['npm start demo token', 1],
          ['npm start demo token', 1],
          ['npm start demo token', 0],
        ],
      );
    });
  });
}
