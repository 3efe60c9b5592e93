/**
 * GitLab's access rules the write side once missed (issue 31, items 4, 8–11), on both dialects:
 * merge requests of a private project are hidden from its guests on every face; the last Owner
 * cannot leave; non-members' issue metadata is dropped silently; an idempotent retry is answered
 * as a fresh request once the caller lost access; an expired membership grants nothing from
 * 00:00 UTC of its expiry day, in every listing and version tag.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AddressInfo } from 'node:net';
import { toGlobalId } from '../../src/graphql/ids.js';
import { buildServer } from '../../src/server.js';
import { openStore } from '../../src/store/store.js';
import { raw } from '../graphql/client.js';
import { EVENT_FIELDS, liveClient, sleep, untilSubscribed } from '../graphql/live-support.js';
import { call } from '../helpers/http.js';
import { Browser, PASSWORD } from '../oauth/support.js';
import { BROWSER_ACCEPT } from '../web/activity-world.js';
import { hashPassword } from '../../src/domain/secrets.js';
import { DIALECTS } from '../helpers/server.js';
import { type Actors, api, startWithUsers } from './helpers.js';

for (const dialect of DIALECTS) {
  describe(`access rules (${dialect})`, () => {
    let a: Actors;
    let pub: number;
    let priv: number;
    /** alice's merge request !1 in the private project, with a note; an issue with a note. */
    let mrId: number;
    let issueIid: number;

    const tokenOf = (user: string) => a.tokens[user]!;
    const addMember = async (project: number, user: string, level: number, expires?: string) => {
      const res = await api(a.server, 'POST', `/projects/${project}/members`, tokenOf('alice'), {
        user_id: a.ids[user],
        access_level: level,
        ...(expires ? { expires_at: expires } : {}),
      });
      assert.equal(res.status, 201, res.text);
    };
    const removeMember = async (project: number, user: string) => {
      const res = await api(
        a.server,
        'DELETE',
        `/projects/${project}/members/${a.ids[user]}`,
        tokenOf('alice'),
      );
      assert.equal(res.status, 204, res.text);
    };
    const events = async (path: string, user: string | undefined) => {
      const res = await api(a.server, 'GET', path, user && tokenOf(user));
      assert.equal(res.status, 200, res.text);
      return res;
    };
    const kinds = (body: unknown) =>
      (body as Array<{ action_name: string; target_type: string | null; note?: unknown }>).map(
        (e) => `${e.action_name} ${e.target_type ?? '-'}`,
      );

    before(async () => {
      // carol: Reporter in both projects; dave: Guest in both; erin: in neither.
      a = await startWithUsers(dialect, ['alice', 'bob', 'carol', 'dave', 'erin']);
      for (const [path, visibility] of [
        ['open-house', 'public'],
        ['vault', 'private'],
      ] as const) {
        const res = await api(a.server, 'POST', '/projects', tokenOf('alice'), {
          path,
          visibility,
        });
        assert.equal(res.status, 201, res.text);
        const id = (res.body as { id: number }).id;
        if (visibility === 'public') pub = id;
        else priv = id;
        await addMember(id, 'carol', 20);
        await addMember(id, 'dave', 10);
      }
      const mr = await api(a.server, 'POST', `/projects/${priv}/merge_requests`, tokenOf('alice'), {
        source_branch: 'feature',
        target_branch: 'main',
        title: 'Secret refactor',
      });
      assert.equal(mr.status, 201, mr.text);
      mrId = (mr.body as { id: number }).id;
      const note = await api(
        a.server,
        'POST',
        `/projects/${priv}/merge_requests/1/notes`,
        tokenOf('alice'),
        { body: 'looks good' },
      );
      assert.equal(note.status, 201, note.text);
      const issue = await api(a.server, 'POST', `/projects/${priv}/issues`, tokenOf('alice'), {
        title: 'Plain issue',
      });
      issueIid = (issue.body as { iid: number }).iid;
      const issueNote = await api(
        a.server,
        'POST',
        `/projects/${priv}/issues/${issueIid}/notes`,
        tokenOf('alice'),
        { body: 'on the issue' },
      );
      assert.equal(issueNote.status, 201, issueNote.text);
    });
    after(() => a.server.close());

    it('hides a private project’s merge requests, their events and notes from its guests (REST)', async () => {
      const list = await api(a.server, 'GET', `/projects/${priv}/merge_requests`, tokenOf('dave'));
      assert.equal(list.status, 403);
      assert.deepEqual(list.body, { message: '403 Forbidden' });
      for (const [method, path, body] of [
        ['GET', `/projects/${priv}/merge_requests/1`, undefined],
        ['GET', `/projects/${priv}/merge_requests/1/notes`, undefined],
        ['GET', `/projects/${priv}/merge_requests/1/approvals`, undefined],
        ['POST', `/projects/${priv}/merge_requests/1/notes`, { body: 'let me in' }],
      ] as const) {
        const res = await api(a.server, method, path, tokenOf('dave'), body);
        assert.equal(res.status, 404, `${method} ${path}`);
        assert.deepEqual(res.body, { message: '404 Merge Request Not Found' }, path);
      }
      // A Reporter sees them, and a guest of a public project too (the role is not enforced there).
      const reporter = await api(
        a.server,
        'GET',
        `/projects/${priv}/merge_requests`,
        tokenOf('carol'),
      );
      assert.equal(reporter.status, 200);
      assert.equal((reporter.body as unknown[]).length, 1);
      const publicMr = await api(
        a.server,
        'POST',
        `/projects/${pub}/merge_requests`,
        tokenOf('alice'),
        {
          source_branch: 'open',
          target_branch: 'main',
          title: 'Open refactor',
        },
      );
      assert.equal(publicMr.status, 201);
      for (const user of ['dave', 'erin']) {
        const res = await api(a.server, 'GET', `/projects/${pub}/merge_requests/1`, tokenOf(user));
        assert.equal(res.status, 200, user);
      }

      const guest = await events(`/projects/${priv}/events`, 'dave');
      assert.deepEqual(kinds(guest.body), [
        'commented on Note',
        'opened Issue',
        'joined -',
        'joined -',
        'created -',
      ]);
      assert.equal(guest.headers.get('x-total'), '5');
      const all = await events(`/projects/${priv}/events`, 'carol');
      assert.deepEqual(kinds(all.body).slice(0, 4), [
        'commented on Note',
        'opened Issue',
        'commented on Note',
        'opened MergeRequest',
      ]);
      assert.equal(all.headers.get('x-total'), '7');
      // The same rule in the guest's own listings and in alice's profile as the guest sees it.
      const mine = await events(`/users/${a.ids.alice}/events`, 'dave');
      const inVault = (body: unknown) =>
        kinds((body as Array<{ project_id: number }>).filter((e) => e.project_id === priv));
      assert.deepEqual(inVault(mine.body), ['commented on Note', 'opened Issue', 'created -']);
      assert.equal(Number(mine.headers.get('x-total')), (mine.body as unknown[]).length);
      const filtered = await events(
        `/users/${a.ids.alice}/events?target_type=merge_request`,
        'dave',
      );
      assert.deepEqual(
        (filtered.body as Array<{ project_id: number }>).map((e) => e.project_id),
        [pub],
      );
    });

    it('hides them over GraphQL: events, node lookups and createNote', async () => {
      const token = tokenOf('dave');
      const gid = toGlobalId('MergeRequest', mrId);
      const node = await raw<{ node: unknown }>(
        a.server.url,
        'query($id: ID!) { node(id: $id) { id } }',
        { id: gid },
        { token },
      );
      assert.deepEqual(node.body, { data: { node: null } });
      const note = await raw(
        a.server.url,
        'mutation($id: NoteableID!) { createNote(input: { noteableId: $id, body: "hi" }) { errors } }',
        { id: gid },
        { token },
      );
      assert.equal(note.body.errors?.[0]?.extensions?.code, 'NOT_FOUND');
      const listed = await raw<{
        project: { events: { nodes: Array<{ targetType: string | null }> } };
      }>(
        a.server.url,
        'query($p: ID!) { project(fullPath: $p) { events(first: 50) { nodes { targetType } } } }',
        { p: 'alice/vault' },
        { token },
      );
      const types = listed.body.data!.project.events.nodes.map((e) => e.targetType);
      assert.deepEqual(types, ['NOTE', 'ISSUE', null, null, null]);
      const reporter = await raw<{ node: { id: string } | null }>(
        a.server.url,
        'query($id: ID!) { node(id: $id) { id } }',
        { id: gid },
        { token: tokenOf('carol') },
      );
      assert.notEqual(reporter.body.data?.node, null);
    });

    it('hides them from a guest’s subscriptions, Atom feeds and activity pages as they happen', async () => {
      const project = `subscription { eventCreated(project: "alice/vault") { ${EVENT_FIELDS} } }`;
      const guest = liveClient(a.server.url, { 'PRIVATE-TOKEN': tokenOf('dave') });
      const reporter = liveClient(a.server.url, { 'PRIVATE-TOKEN': tokenOf('carol') });
      try {
        const asGuest = guest.subscribe(project);
        const asReporter = reporter.subscribe(project);
        await untilSubscribed(a.server.services, 2);
        const onMr = await api(
          a.server,
          'POST',
          `/projects/${priv}/merge_requests/1/notes`,
          tokenOf('alice'),
          { body: 'second look' },
        );
        assert.equal(onMr.status, 201);
        const onIssue = await api(
          a.server,
          'POST',
          `/projects/${priv}/issues/${issueIid}/notes`,
          tokenOf('alice'),
          { body: 'on the issue again' },
        );
        assert.equal(onIssue.status, 201);
        await asReporter.waitFor(2);
        await asGuest.waitFor(1);
        await sleep(100);
        assert.deepEqual(
          asReporter.events.map((e) => e.targetId),
          [(onMr.body as { id: number }).id, (onIssue.body as { id: number }).id],
        );
        assert.deepEqual(
          asGuest.events.map((e) => e.targetId),
          [(onIssue.body as { id: number }).id],
        );
      } finally {
        await guest.dispose();
        await reporter.dispose();
      }
      const feed = async (user: string) => {
        const token = await a.server.services.feedTokens.tokenFor(a.ids[user]!);
        const res = await call(a.server.url, `/alice/vault.atom?feed_token=${token}`);
        assert.equal(res.status, 200, res.text);
        return res.text;
      };
      assert.match(await feed('carol'), /Secret refactor/);
      const guestFeed = await feed('dave');
      assert.doesNotMatch(guestFeed, /Secret refactor|merge_requests/);
      assert.match(guestFeed, /Plain issue/);
      // And the project's activity page, signed in through the form.
      const page = async (user: string) => {
        await a.server.store.db
          .updateTable('users')
          .set({ password_hash: await hashPassword(PASSWORD) })
          .where('id', '=', a.ids[user]!)
          .execute();
        const browser = new Browser(a.server.url);
        assert.equal((await browser.signIn(user, PASSWORD)).status, 303);
        const res = await browser.fetch('/alice/vault/activity', {
          headers: { accept: BROWSER_ACCEPT },
        });
        assert.equal(res.status, 200);
        return res.text;
      };
      assert.match(await page('carol'), /Secret refactor/);
      const guestPage = await page('dave');
      assert.doesNotMatch(guestPage, /Secret refactor/);
      assert.match(guestPage, /Plain issue/);
    });

    it('drops a non-member’s or guest’s milestone on issues, silently; a Reporter sets it', async () => {
      const milestone = await api(
        a.server,
        'POST',
        `/projects/${pub}/milestones`,
        tokenOf('alice'),
        {
          title: 'v1',
        },
      );
      assert.equal(milestone.status, 201, milestone.text);
      const milestoneId = (milestone.body as { id: number }).id;
      for (const [user, kept] of [
        ['erin', false],
        ['dave', false],
        ['carol', true],
      ] as const) {
        const opened = await api(a.server, 'POST', `/projects/${pub}/issues`, tokenOf(user), {
          title: `From ${user}`,
          milestone_id: milestoneId,
        });
        assert.equal(opened.status, 201, opened.text);
        const body = opened.body as { iid: number; milestone: { id: number } | null };
        assert.equal(body.milestone?.id ?? null, kept ? milestoneId : null, user);
        // Changing it on their own issue: dropped too, the rest of the edit goes through.
        const edited = await api(
          a.server,
          'PUT',
          `/projects/${pub}/issues/${body.iid}`,
          tokenOf(user),
          { milestone_id: milestoneId, title: `Edited by ${user}` },
        );
        assert.equal(edited.status, 200, edited.text);
        const after = edited.body as { title: string; milestone: { id: number } | null };
        assert.equal(after.title, `Edited by ${user}`);
        assert.equal(after.milestone?.id ?? null, kept ? milestoneId : null, user);
      }
    });

    it('refuses to remove the last Owner (403) and the personal namespace’s owner', async () => {
      const own = await api(
        a.server,
        'DELETE',
        `/projects/${pub}/members/${a.ids.alice}`,
        tokenOf('alice'),
      );
      assert.equal(own.status, 403);
      assert.deepEqual(own.body, { message: '403 Forbidden' });
      // A project an admin makes in erin's namespace is erin's too, for good.
      const root = await a.fx.user(`root-${dialect}`, { admin: true });
      const rootToken = await a.fx.token(root.id, ['api']);
      const made = await api(a.server, 'POST', '/projects', rootToken, {
        path: 'given',
        namespace_id: 'erin',
      });
      assert.equal(made.status, 201, made.text);
      const given = (made.body as { id: number }).id;
      const erin = await api(
        a.server,
        'GET',
        `/projects/${given}/members/${a.ids.erin}`,
        tokenOf('erin'),
      );
      assert.equal((erin.body as { access_level: number }).access_level, 50);
      for (const asker of [rootToken, tokenOf('erin')]) {
        const res = await api(
          a.server,
          'DELETE',
          `/projects/${given}/members/${a.ids.erin}`,
          asker,
        );
        assert.equal(res.status, 403);
      }
      // In a group namespace: a second Owner may go, the last may not, whoever asks.
      const acme = await a.fx.project(`acme/owners-${dialect}`, a.ids.alice!, 'public');
      await a.fx.member(acme.id, a.ids.alice!, 50);
      await a.fx.member(acme.id, a.ids.bob!, 50);
      const leave = await api(
        a.server,
        'DELETE',
        `/projects/${acme.id}/members/${a.ids.bob}`,
        tokenOf('bob'),
      );
      assert.equal(leave.status, 204);
      const last = await api(
        a.server,
        'DELETE',
        `/projects/${acme.id}/members/${a.ids.alice}`,
        tokenOf('alice'),
      );
      assert.equal(last.status, 403);
      const members = await api(a.server, 'GET', `/projects/${acme.id}/members`, tokenOf('alice'));
      assert.deepEqual(
        (members.body as Array<{ username: string }>).map((m) => m.username),
        ['alice'],
      );
    });

    it('leaves an Owner when two Owners remove each other at once (10 rounds; PostgreSQL: two servers)', async () => {
      const acme = await a.fx.project(`acme/duel-${dialect}`, a.ids.alice!, 'public');
      // On PostgreSQL a second server over the same database, as a second process would be: the
      // two removals then race on separate connections and separate caches.
      const otherStore =
        dialect === 'postgres'
          ? await openStore(a.server.config.databaseUrl, { migrate: false })
          : null;
      const other = otherStore
        ? await buildServer({
            config: { ...a.server.config },
            store: otherStore,
            clock: a.server.clock,
          })
        : null;
      if (other) await other.app.listen({ host: '127.0.0.1', port: 0 });
      const second = other
        ? {
            ...a.server,
            url: `http://127.0.0.1:${(other.app.server.address() as AddressInfo).port}`,
          }
        : a.server;
      try {
        for (let round = 0; round < 10; round++) {
          await a.fx.member(acme.id, a.ids.alice!, 50);
          await a.fx.member(acme.id, a.ids.bob!, 50);
          const [x, y] = await Promise.all([
            api(a.server, 'DELETE', `/projects/${acme.id}/members/${a.ids.bob}`, tokenOf('alice')),
            api(second, 'DELETE', `/projects/${acme.id}/members/${a.ids.alice}`, tokenOf('bob')),
          ]);
          assert.deepEqual([x.status, y.status].sort(), [204, 403], `round ${round}`);
          const owners = await a.server.store.db
            .selectFrom('project_members')
            .select('user_id')
            .where('project_id', '=', acme.id)
            .execute();
          assert.equal(owners.length, 1, `round ${round}`);
          await a.server.store.db
            .deleteFrom('project_members')
            .where('project_id', '=', acme.id)
            .execute();
        }
      } finally {
        await other?.app.close();
        await otherStore?.close();
      }
    });

    it('answers a retry as a fresh request once the caller lost access (REST and GraphQL)', async () => {
      const key = { 'idempotency-key': `note-${dialect}` };
      const path = `/projects/${priv}/merge_requests/1/notes`;
      const first = await api(a.server, 'POST', path, tokenOf('carol'), { body: 'mine' }, key);
      assert.equal(first.status, 201, first.text);
      const again = await api(a.server, 'POST', path, tokenOf('carol'), { body: 'mine' }, key);
      assert.equal(again.status, 201);
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      // Now a Guest: the merge request is hidden from her.
      await removeMember(priv, 'carol');
      await addMember(priv, 'carol', 10);
      const asGuest = await api(a.server, 'POST', path, tokenOf('carol'), { body: 'mine' }, key);
      assert.equal(asGuest.status, 404);
      assert.deepEqual(asGuest.body, { message: '404 Merge Request Not Found' });
      assert.equal(asGuest.headers.get('idempotent-replayed'), null);
      // No longer a member: the project is hidden.
      await removeMember(priv, 'carol');
      const outside = await api(a.server, 'POST', path, tokenOf('carol'), { body: 'mine' }, key);
      assert.equal(outside.status, 404);
      assert.deepEqual(outside.body, { message: '404 Project Not Found' });

      await addMember(priv, 'bob', 30);
      const headers = { 'idempotency-key': `issue-${dialect}` };
      const mutation =
        'mutation { createIssue(input: { projectPath: "alice/vault", title: "Kept" }) { issue { title } errors } }';
      const made = await raw(a.server.url, mutation, undefined, { token: tokenOf('bob'), headers });
      assert.deepEqual(made.body, {
        data: { createIssue: { issue: { title: 'Kept' }, errors: [] } },
      });
      await removeMember(priv, 'bob');
      const retried = await raw(a.server.url, mutation, undefined, {
        token: tokenOf('bob'),
        headers,
      });
      assert.equal(retried.body.errors?.[0]?.extensions?.code, 'NOT_FOUND');
      await addMember(priv, 'carol', 20);
    });

    it('ends an expired membership at 00:00 UTC of its expiry day, in every reading and tag', async () => {
      // The test clock stands at 2026-01-15 12:00 UTC: good through the 15th.
      await addMember(priv, 'erin', 30, '2026-01-16');
      const project = await api(a.server, 'GET', `/projects/${priv}`, tokenOf('erin'));
      assert.equal(project.status, 200);
      const beforeAll = await events('/events?scope=all', 'erin');
      assert.ok(
        (beforeAll.body as Array<{ project_id: number }>).some((e) => e.project_id === priv),
      );
      const beforeOwn = await events(`/projects/${priv}/events`, 'erin');
      const tag = beforeAll.headers.get('etag')!;
      const profile = await events(`/users/${a.ids.alice}/events`, 'erin');
      assert.ok((profile.body as Array<{ project_id: number }>).some((e) => e.project_id === priv));

      a.server.clock.advance(12 * 3600 * 1000);
      try {
        for (const path of [
          `/projects/${priv}`,
          `/projects/${priv}/events`,
          `/projects/${priv}/issues`,
        ]) {
          const res = await api(a.server, 'GET', path, tokenOf('erin'));
          assert.equal(res.status, 404, path);
        }
        const write = await api(a.server, 'POST', `/projects/${priv}/issues`, tokenOf('erin'), {
          title: 'too late',
        });
        assert.equal(write.status, 404);
        const afterAll = await api(
          a.server,
          'GET',
          '/events?scope=all',
          tokenOf('erin'),
          undefined,
          {
            'if-none-match': tag,
          },
        );
        assert.equal(afterAll.status, 200);
        assert.ok(
          !(afterAll.body as Array<{ project_id: number }>).some((e) => e.project_id === priv),
        );
        const afterProfile = await events(`/users/${a.ids.alice}/events`, 'erin');
        assert.ok(
          !(afterProfile.body as Array<{ project_id: number }>).some((e) => e.project_id === priv),
        );
        assert.equal(
          Number(afterProfile.headers.get('x-total')),
          (afterProfile.body as unknown[]).length,
        );
        const gql = await raw(
          a.server.url,
          '{ project(fullPath: "alice/vault") { name } }',
          undefined,
          { token: tokenOf('erin') },
        );
        assert.equal(gql.body.errors?.[0]?.extensions?.code, 'NOT_FOUND');
        assert.ok(beforeOwn.status === 200);
      } finally {
        a.server.clock.advance(-12 * 3600 * 1000);
        await removeMember(priv, 'erin');
      }
    });
  });
}
