/**
 * What the writes add survives a move: after projects, members with expiry, issues with
 * descriptions, closed and merged merge requests with approvals, and milestones with dates were
 * written through the API, `export` then `import` into an empty database (PostgreSQL when
 * available) answers the content endpoints byte for byte the same.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ImportService } from '../../src/data/import.js';
import { exportText } from '../helpers/export-text.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';
import { type Actors, api, startWithUsers } from './helpers.js';

describe('written content survives export and import', () => {
  let a: Actors;
  let copy: TestServer;
  let project: number;
  const paths: string[] = [];
  before(async () => {
    a = await startWithUsers('sqlite', ['alice', 'bob']);
    const created = await api(a.server, 'POST', '/projects', a.tokens.alice, {
      name: 'Moving',
      visibility: 'private',
      default_branch: 'trunk',
    });
    project = (created.body as { id: number }).id;
    const steps: [string, string, string, unknown][] = [
      [
        'POST',
        `/projects/${project}/members`,
        'alice',
        { user_id: a.ids.bob, access_level: 30, expires_at: '2027-01-01' },
      ],
      [
        'POST',
        `/projects/${project}/milestones`,
        'alice',
        { title: 'v2', description: 'Next', start_date: '2026-02-01', due_date: '2026-03-01' },
      ],
      ['PUT', `/projects/${project}/milestones/MILESTONE`, 'alice', { state_event: 'close' }],
      [
        'POST',
        `/projects/${project}/issues`,
        'bob',
        { title: 'Boxes', description: 'Pack them', milestone_id: 'MILESTONE' },
      ],
      ['PUT', `/projects/${project}/issues/1`, 'alice', { state_event: 'close' }],
      [
        'POST',
        `/projects/${project}/merge_requests`,
        'bob',
        { source_branch: 'van', target_branch: 'trunk', title: 'Load', description: 'All of it' },
      ],
      ['POST', `/projects/${project}/merge_requests/1/approve`, 'alice', undefined],
      ['PUT', `/projects/${project}/merge_requests/1/merge`, 'alice', undefined],
      [
        'POST',
        `/projects/${project}/merge_requests`,
        'bob',
        { source_branch: 'truck', target_branch: 'trunk', title: 'Unload' },
      ],
      ['PUT', `/projects/${project}/merge_requests/2`, 'bob', { state_event: 'close' }],
    ];
    let milestone = 0;
    for (const [method, path, who, body] of steps) {
      const fill = (v: unknown) => (v === 'MILESTONE' ? milestone : v);
      const payload =
        body && Object.fromEntries(Object.entries(body).map(([k, v]) => [k, fill(v)]));
      const res = await api(
        a.server,
        method,
        path.replace('MILESTONE', String(milestone)),
        a.tokens[who],
        payload,
      );
      assert.ok(res.status < 300, `${method} ${path}: ${res.text}`);
      if (path.endsWith('/milestones')) milestone = (res.body as { id: number }).id;
    }
    paths.push(
      `/projects/${project}`,
      `/projects/${project}/members`,
      `/projects/${project}/issues/1`,
      `/projects/${project}/merge_requests?state=all`,
      `/projects/${project}/merge_requests/1/approvals`,
      `/projects/${project}/milestones/${milestone}`,
      `/projects/${project}/events?per_page=100`,
    );
    const text = await exportText(a.server.store);
    const dialect = DIALECTS.includes('postgres') ? 'postgres' : 'sqlite';
    copy = await startServer({
      dialect,
      seed: async (store) => {
        await new ImportService(store, { now: () => 0 }).importText(text);
      },
    });
    copy.config.externalUrl = a.server.url;
  });
  after(async () => {
    await copy?.close();
    await a.server.close();
  });

  it('answers the same bytes for projects, members, issues, merge requests, approvals, milestones, events', async () => {
    for (const path of paths) {
      const original = await api(a.server, 'GET', path, a.tokens.alice);
      const copied = await api(copy, 'GET', path, a.tokens.alice);
      assert.equal(original.status, 200, `${path}: ${original.text}`);
      assert.equal(copied.status, original.status, path);
      assert.equal(copied.text, original.text, path);
    }
  });
});
