/**
 * The rules around writes, on both dialects: who may do what (GitLab's roles), bad input in
 * Grape's shapes, Idempotency-Key retries, concurrent creates, membership expiry, and a write that
 * fails halfway leaving nothing behind.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../helpers/server.js';
import { type Actors, api, startWithUsers, story } from './helpers.js';

for (const dialect of DIALECTS) {
  describe(`REST write rules (${dialect})`, () => {
    let a: Actors;
    /** A public and a private project owned by alice; bob developer, carol reporter, dave guest. */
    let pub: number;
    let priv: number;
    before(async () => {
      a = await startWithUsers(dialect, ['alice', 'bob', 'carol', 'dave', 'erin']);
      for (const [path, visibility] of [
        ['pub', 'public'],
        ['priv', 'private'],
      ] as const) {
        const res = await api(a.server, 'POST', '/projects', a.tokens.alice, { path, visibility });
        assert.equal(res.status, 201);
        const id = (res.body as { id: number }).id;
        if (path === 'pub') pub = id;
        else priv = id;
        for (const [user, level] of [
          ['bob', 30],
          ['carol', 20],
          ['dave', 10],
        ] as const) {
          const add = await api(a.server, 'POST', `/projects/${id}/members`, a.tokens.alice, {
            user_id: a.ids[user],
            access_level: level,
          });
          assert.equal(add.status, 201);
        }
      }
    });
    after(() => a.server.close());

    const openIssue = async (project: number, token: string, title = 'An issue') => {
      const res = await api(a.server, 'POST', `/projects/${project}/issues`, token, { title });
      assert.equal(res.status, 201, res.text);
      return (res.body as { iid: number }).iid;
    };

    it('refuses anonymous writes (401) and read-only tokens (403 insufficient_scope)', async () => {
      const anon = await api(a.server, 'POST', `/projects/${pub}/issues`, undefined, {
        title: 'x',
      });
      assert.equal(anon.status, 401);
      assert.deepEqual(anon.body, { message: '401 Unauthorized' });
      for (const scope of ['read_api', 'read_user']) {
        const token = await a.fx.token(a.ids.alice!, [scope]);
        const res = await api(a.server, 'POST', `/projects/${pub}/issues`, token, { title: 'x' });
        assert.equal(res.status, 403, scope);
        assert.equal((res.body as { error: string }).error, 'insufficient_scope');
        assert.match(res.headers.get('www-authenticate') ?? '', /error="insufficient_scope"/);
      }
    });

    it('hides private projects (404) and lets outsiders open issues and comment on public ones', async () => {
      const hidden = await api(a.server, 'POST', `/projects/${priv}/issues`, a.tokens.erin, {
        title: 'x',
      });
      assert.equal(hidden.status, 404);
      assert.deepEqual(hidden.body, { message: '404 Project Not Found' });
      const iid = await openIssue(pub, a.tokens.erin!, 'From outside');
      const note = await api(
        a.server,
        'POST',
        `/projects/${pub}/issues/${iid}/notes`,
        a.tokens.erin,
        {
          body: 'me too',
        },
      );
      assert.equal(note.status, 201);
      // An outsider cannot close somebody else's issue, but may close their own.
      const other = await openIssue(pub, a.tokens.bob!, 'Bob files');
      const refused = await api(
        a.server,
        'PUT',
        `/projects/${pub}/issues/${other}`,
        a.tokens.erin,
        {
          state_event: 'close',
        },
      );
      assert.equal(refused.status, 403);
      assert.deepEqual(refused.body, { message: '403 Forbidden' });
      const own = await api(a.server, 'PUT', `/projects/${pub}/issues/${iid}`, a.tokens.erin, {
        state_event: 'close',
      });
      assert.equal(own.status, 200);
      // Merge requests need Developer.
      const mr = await api(a.server, 'POST', `/projects/${pub}/merge_requests`, a.tokens.erin, {
        source_branch: 'a',
        target_branch: 'main',
        title: 'x',
      });
      assert.equal(mr.status, 403);
    });

    it("applies roles: guests may not close others' issues, reporters may; merging needs Developer", async () => {
      const iid = await openIssue(priv, a.tokens.bob!);
      const byGuest = await api(a.server, 'PUT', `/projects/${priv}/issues/${iid}`, a.tokens.dave, {
        state_event: 'close',
      });
      assert.equal(byGuest.status, 403);
      const byReporter = await api(
        a.server,
        'PUT',
        `/projects/${priv}/issues/${iid}`,
        a.tokens.carol,
        {
          state_event: 'close',
        },
      );
      assert.equal(byReporter.status, 200);
      const mr = await api(a.server, 'POST', `/projects/${priv}/merge_requests`, a.tokens.bob, {
        source_branch: 'feature',
        target_branch: 'main',
        title: 'Feature',
      });
      assert.equal(mr.status, 201);
      const mrIid = (mr.body as { iid: number }).iid;
      const reporterMerge = await api(
        a.server,
        'PUT',
        `/projects/${priv}/merge_requests/${mrIid}/merge`,
        a.tokens.carol,
      );
      assert.equal(reporterMerge.status, 401);
      assert.deepEqual(reporterMerge.body, { message: '401 Unauthorized' });
      const guestMilestone = await api(
        a.server,
        'POST',
        `/projects/${priv}/milestones`,
        a.tokens.dave,
        {
          title: 'm',
        },
      );
      assert.equal(guestMilestone.status, 403);
      const reporterMilestone = await api(
        a.server,
        'POST',
        `/projects/${priv}/milestones`,
        a.tokens.carol,
        {
          title: 'm',
        },
      );
      assert.equal(reporterMilestone.status, 201);
      // Maintainers grant at most Maintainer; nobody below Maintainer manages members.
      const devAdds = await api(a.server, 'POST', `/projects/${priv}/members`, a.tokens.bob, {
        user_id: a.ids.erin,
        access_level: 10,
      });
      assert.equal(devAdds.status, 403);
      // Anyone may leave.
      const leave = await api(
        a.server,
        'DELETE',
        `/projects/${priv}/members/${a.ids.dave}`,
        a.tokens.dave,
      );
      assert.equal(leave.status, 204);
      const after = await api(a.server, 'POST', `/projects/${priv}/issues`, a.tokens.dave, {
        title: 'x',
      });
      assert.equal(after.status, 404);
    });

    it("answers bad input in Grape's shapes, never 500", async () => {
      const cases: [string, string, unknown, number, unknown][] = [
        ['POST', `/projects/${pub}/issues`, {}, 400, { error: 'title is missing' }],
        [
          'POST',
          `/projects/${pub}/issues`,
          { title: '   ' },
          400,
          { message: { title: ["can't be blank"] } },
        ],
        [
          'POST',
          `/projects/${pub}/issues`,
          { title: 'x'.repeat(256) },
          400,
          {
            message: { title: ['is too long (maximum is 255 characters)'] },
          },
        ],
        [
          'POST',
          `/projects/${pub}/issues`,
          { title: 'x', confidential: 'maybe' },
          400,
          {
            error: 'confidential is invalid',
          },
        ],
        // NUL cannot be stored (PostgreSQL refuses it in text): invalid, never a 500.
        [
          'POST',
          `/projects/${pub}/issues`,
          { title: 'a\u0000b' },
          400,
          { error: 'title is invalid' },
        ],
        [
          'PUT',
          `/projects/${pub}/issues/1`,
          { state_event: 'shut' },
          400,
          {
            error: 'state_event does not have a valid value',
          },
        ],
        [
          'PUT',
          `/projects/${pub}/issues/1`,
          {},
          400,
          {
            error:
              'title, description, confidential, milestone_id, state_event are missing, at least one parameter must be provided',
          },
        ],
        [
          'PUT',
          `/projects/${pub}/issues/abc`,
          { title: 'x' },
          400,
          { error: 'issue_iid is invalid' },
        ],
        [
          'PUT',
          `/projects/${pub}/issues/99999`,
          { title: 'x' },
          404,
          { message: '404 Issue Not Found' },
        ],
        [
          'POST',
          `/projects/99999/issues`,
          { title: 'x' },
          404,
          { message: '404 Project Not Found' },
        ],
        [
          'POST',
          `/projects/${pub}/merge_requests`,
          { title: 'x' },
          400,
          {
            error: 'source_branch is missing, target_branch is missing',
          },
        ],
        [
          'POST',
          `/projects/${pub}/merge_requests`,
          { title: 'x', source_branch: 'a..b', target_branch: 'main' },
          400,
          {
            message: { source_branch: ['is invalid'] },
          },
        ],
        [
          'POST',
          `/projects/${pub}/merge_requests`,
          { title: 'x', source_branch: 'main', target_branch: 'main' },
          422,
          {
            message: "You can't use same project/branch for source and target",
          },
        ],
        [
          'POST',
          `/projects/${pub}/members`,
          { user_id: a.ids.erin, access_level: 35 },
          400,
          {
            error: 'access_level does not have a valid value',
          },
        ],
        [
          'POST',
          `/projects/${pub}/members`,
          { user_id: 424242, access_level: 30 },
          404,
          {
            message: '404 User Not Found',
          },
        ],
        // JSON numbers past the 32-bit id range are invalid like such text (PostgreSQL's integer
        // columns refuse them: once a 500 there).
        [
          'POST',
          `/projects/${pub}/members`,
          { user_id: 2 ** 31, access_level: 30 },
          400,
          { error: 'user_id is invalid' },
        ],
        [
          'POST',
          `/projects/${pub}/issues`,
          { title: 'x', milestone_id: Number.MAX_SAFE_INTEGER },
          400,
          { error: 'milestone_id is invalid' },
        ],
        [
          'POST',
          `/projects/${pub}/members`,
          { user_id: a.ids.erin, access_level: 30, expires_at: '2026-02-30' },
          400,
          {
            error: 'expires_at is invalid',
          },
        ],
        [
          'POST',
          `/projects/${pub}/milestones`,
          { title: 'm2', start_date: '2026-05-01', due_date: '2026-04-01' },
          400,
          {
            message: { due_date: ['must be greater than start date'] },
          },
        ],
        [
          'POST',
          `/projects/${pub}/issues/1/notes`,
          { body: '' },
          400,
          { message: { note: ["can't be blank"] } },
        ],
        [
          'POST',
          '/projects',
          { name: 'Bad', path: '-bad' },
          400,
          {
            message: {
              path: [
                "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'",
              ],
            },
          },
        ],
        [
          'POST',
          '/projects',
          {},
          400,
          { error: 'name, path are missing, at least one parameter must be provided' },
        ],
      ];
      for (const [method, path, body, status, expected] of cases) {
        const res = await api(a.server, method, path, a.tokens.alice, body);
        assert.equal(res.status, status, `${method} ${path} ${JSON.stringify(body)}: ${res.text}`);
        assert.deepEqual(res.body, expected, `${method} ${path} ${JSON.stringify(body)}`);
      }
      const notJson = await a.server.app.inject({
        method: 'POST',
        url: `/api/v4/projects/${pub}/issues`,
        headers: { 'private-token': a.tokens.alice!, 'content-type': 'application/json' },
        payload: '{"title":',
      });
      assert.equal(notJson.statusCode, 400);
      // Form bodies, as curl -d sends them, work like JSON.
      const form = await a.server.app.inject({
        method: 'POST',
        url: `/api/v4/projects/${pub}/issues`,
        headers: {
          'private-token': a.tokens.alice!,
          'content-type': 'application/x-www-form-urlencoded',
        },
        payload: 'title=From+a+form&confidential=true',
      });
      assert.equal(form.statusCode, 201);
      assert.equal(form.json().confidential, true);
      assert.equal(form.json().title, 'From a form');
    });

    it('replays an Idempotency-Key retry without writing again, and refuses the key on another request', async () => {
      const key = `retry-${dialect}`;
      const send = (title: string) =>
        api(
          a.server,
          'POST',
          `/projects/${pub}/issues`,
          a.tokens.bob,
          { title },
          { 'idempotency-key': key },
        );
      const first = await send('Once only');
      assert.equal(first.status, 201);
      assert.equal(first.headers.get('idempotent-replayed'), null);
      const retry = await send('Once only');
      assert.equal(retry.status, 201);
      assert.equal(retry.headers.get('idempotent-replayed'), 'true');
      assert.equal(retry.text, first.text);
      const list = await api(a.server, 'GET', `/projects/${pub}/issues?per_page=100`, a.tokens.bob);
      assert.equal(
        (list.body as { title: string }[]).filter((i) => i.title === 'Once only').length,
        1,
      );
      const other = await send('Something else');
      assert.equal(other.status, 422);
      assert.deepEqual(other.body, {
        message: 'Idempotency-Key was already used for a different request',
      });
      // Another user's identical key is theirs alone.
      const carol = await api(
        a.server,
        'POST',
        `/projects/${pub}/issues`,
        a.tokens.carol,
        { title: 'Once only' },
        {
          'idempotency-key': key,
        },
      );
      assert.equal(carol.status, 201);
      assert.notEqual((carol.body as { id: number }).id, (first.body as { id: number }).id);
      // Concurrent first attempts with one key still write once.
      const racing = await Promise.all(
        Array.from({ length: 8 }, () =>
          api(
            a.server,
            'POST',
            `/projects/${pub}/issues`,
            a.tokens.bob,
            { title: 'Raced' },
            {
              'idempotency-key': `race-${dialect}`,
            },
          ),
        ),
      );
      assert.deepEqual(new Set(racing.map((r) => r.status)), new Set([201]));
      assert.equal(new Set(racing.map((r) => (r.body as { id: number }).id)).size, 1);
      const bad = await api(
        a.server,
        'POST',
        `/projects/${pub}/issues`,
        a.tokens.bob,
        { title: 'x' },
        {
          'idempotency-key': 'x'.repeat(300),
        },
      );
      assert.equal(bad.status, 400);
    });

    it('gives 50 concurrent creates 50 distinct consecutive iids and 50 events', async () => {
      const created = await api(a.server, 'POST', '/projects', a.tokens.alice, {
        path: `busy-${dialect}`,
      });
      const project = (created.body as { id: number }).id;
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          api(a.server, 'POST', `/projects/${project}/issues`, a.tokens.alice, {
            title: `Burst ${i}`,
          }),
        ),
      );
      assert.deepEqual(new Set(results.map((r) => r.status)), new Set([201]));
      const iids = results.map((r) => (r.body as { iid: number }).iid).sort((x, y) => x - y);
      assert.deepEqual(
        iids,
        Array.from({ length: 50 }, (_, i) => i + 1),
      );
      const events = await api(
        a.server,
        'GET',
        `/projects/${project}/events?action=created&target_type=issue&per_page=100`,
        a.tokens.alice,
      );
      assert.equal((events.body as unknown[]).length, 50);
      assert.equal(events.headers.get('x-total'), '50');
    });

    it('keeps a note on a confidential issue as hidden as the issue', async () => {
      const res = await api(a.server, 'POST', `/projects/${pub}/issues`, a.tokens.bob, {
        title: 'Secret',
        confidential: true,
      });
      const iid = (res.body as { iid: number }).iid;
      await api(a.server, 'POST', `/projects/${pub}/issues/${iid}/notes`, a.tokens.bob, {
        body: 'psst',
      });
      const asOutsider = await api(
        a.server,
        'GET',
        `/projects/${pub}/events?per_page=100`,
        a.tokens.erin,
      );
      const asReporter = await api(
        a.server,
        'GET',
        `/projects/${pub}/events?per_page=100`,
        a.tokens.carol,
      );
      const secretIn = (body: unknown) =>
        (body as { target_title: string | null; note?: { noteable_iid: number } }[]).filter(
          (e) => e.target_title === 'Secret' || e.note?.noteable_iid === iid,
        ).length;
      assert.equal(secretIn(asOutsider.body), 0);
      assert.equal(secretIn(asReporter.body), 2);
      const direct = await api(a.server, 'GET', `/projects/${pub}/issues/${iid}`, a.tokens.erin);
      assert.equal(direct.status, 404);
      const notes = await api(
        a.server,
        'GET',
        `/projects/${pub}/issues/${iid}/notes`,
        a.tokens.erin,
      );
      assert.equal(notes.status, 404);
    });

    it('ends a membership after its expiry day with an "expired" event, once across concurrent runs', async () => {
      const created = await api(a.server, 'POST', '/projects', a.tokens.alice, {
        path: `expiring-${dialect}`,
      });
      const project = (created.body as { id: number }).id;
      const add = await api(a.server, 'POST', `/projects/${project}/members`, a.tokens.alice, {
        user_id: a.ids.erin,
        access_level: 30,
        expires_at: '2026-01-16',
      });
      assert.equal(add.status, 201);
      assert.equal((add.body as { expires_at: string }).expires_at, '2026-01-16');
      const past = await api(a.server, 'POST', `/projects/${project}/members`, a.tokens.alice, {
        user_id: a.ids.bob,
        access_level: 30,
        expires_at: '2026-01-01',
      });
      assert.equal(past.status, 400);
      assert.deepEqual(past.body, { message: { expires_at: ['cannot be a date in the past'] } });
      assert.equal(await a.server.services.content.expireMemberships(), 0);
      a.server.clock.advance(2 * 24 * 3600 * 1000);
      const runs = await Promise.all(
        [1, 2, 3].map(() => a.server.services.content.expireMemberships()),
      );
      assert.equal(
        runs.reduce((x, y) => x + y, 0),
        1,
      );
      const members = await api(a.server, 'GET', `/projects/${project}/members`, a.tokens.alice);
      assert.deepEqual(
        (members.body as { username: string }[]).map((m) => m.username),
        ['alice'],
      );
      const events = await api(a.server, 'GET', `/projects/${project}/events`, a.tokens.alice);
      assert.deepEqual(story(events.body), [
        'alice created -',
        'erin joined -',
        'erin removed due to membership expiration from -',
      ]);
      a.server.clock.advance(-2 * 24 * 3600 * 1000);
    });

    it('leaves neither the object nor the event when a write fails halfway', async () => {
      const { eventHooks } = a.server.services;
      let armed = true;
      eventHooks.inTransaction(async (_tx, event) => {
        if (armed && event.targetType === 'Issue')
          throw new Error('simulated failure after the event row');
      });
      const before = await api(
        a.server,
        'GET',
        `/projects/${pub}/issues?per_page=1`,
        a.tokens.alice,
      );
      const res = await api(a.server, 'POST', `/projects/${pub}/issues`, a.tokens.alice, {
        title: 'Doomed',
      });
      assert.equal(res.status, 500);
      assert.deepEqual(res.body, { message: '500 Internal Server Error' });
      armed = false;
      const afterList = await api(
        a.server,
        'GET',
        `/projects/${pub}/issues?per_page=1`,
        a.tokens.alice,
      );
      assert.equal(afterList.headers.get('x-total'), before.headers.get('x-total'));
      const events = await api(
        a.server,
        'GET',
        `/projects/${pub}/events?per_page=100`,
        a.tokens.alice,
      );
      assert.equal(
        (events.body as { target_title: string | null }[]).some((e) => e.target_title === 'Doomed'),
        false,
      );
      // The next issue takes the iid the failed one would have had.
      const next = await api(a.server, 'POST', `/projects/${pub}/issues`, a.tokens.alice, {
        title: 'Fine',
      });
      assert.equal(next.status, 201);
    });
  });
}
