/**
 * The contribution calendar as GitLab computes it, on both dialects, against days worked out by
 * hand: the contributor's time zone (UTC by default, Pacific/Auckland once set through
 * `PUT /api/v4/user/preferences`), each event placed by the offset in force at its own instant
 * (the NZ daylight-saving edges of April and September 2025), the year's first and last days of
 * each zone, GitLab's counted actions only, and private contributions only once the contributor
 * opts in. Bad preferences get GitLab's 400s.
 *
 * The test servers' clock is 2026-01-15 12:00 UTC: 2026-01-16 01:00 in Auckland (NZDT, +13).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ACCESS_LEVELS } from '../../src/domain/vocabulary.js';
import { calendarDays, offsetSegments, zoneOffset } from '../../src/domain/calendar.js';
import { Fixtures } from '../helpers/fixtures.js';
import { call, get } from '../helpers/http.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';

const at = (iso: string) => Date.parse(iso);

for (const dialect of DIALECTS) {
  describe(`the contribution calendar in the contributor's time zone (${dialect})`, () => {
    let server: TestServer;
    let token: string;
    let readOnly: string;

    before(async () => {
      server = await startServer({ dialect, config: { retainEvents: null } });
      const f = new Fixtures(server.store);
      const alice = await f.user('alice');
      const pub = (await f.project('acme/api', alice.id, 'public')).id;
      const priv = (await f.project('acme/secret', alice.id, 'private')).id;
      await f.member(pub, alice.id, ACCESS_LEVELS.owner);
      await f.member(priv, alice.id, ACCESS_LEVELS.owner);
      token = await f.token(alice.id, ['api']);
      readOnly = await f.token(alice.id, ['read_api']);
      const event = (
        createdAt: string,
        action: Parameters<Fixtures['event']>[0]['action'],
        targetType: string | null = null,
        projectId = pub,
      ) => f.event({ projectId, authorId: alice.id, action, targetType, createdAt });
      // Counted, in the public project.
      await event('2025-01-15T23:30:00Z', 'pushed'); // UTC 01-15 (before the year); NZ 01-16 (before)
      await event('2025-01-16T05:00:00Z', 'pushed'); // UTC 01-16 (first day); NZ 01-16 18:00 (before 01-17)
      await event('2025-01-16T12:00:00Z', 'commented'); // UTC 01-16; NZ 01-17 01:00 (first day)
      await event('2025-04-05T13:30:00Z', 'created', 'Issue'); // NZ 04-06 02:30 NZDT (+13)
      await event('2025-04-05T14:30:00Z', 'closed', 'Issue'); // NZ 04-06 02:30 NZST (+12)
      await event('2025-04-06T11:30:00Z', 'merged', 'MergeRequest'); // NZ 04-06 23:30 (+12; +13 would be 04-07)
      await event('2025-09-27T11:30:00Z', 'approved', 'MergeRequest'); // NZ 09-27 23:30 NZST
      await event('2025-09-27T13:59:59Z', 'created', 'MergeRequest'); // NZ 09-28 01:59:59 NZST
      await event('2025-09-27T14:00:00Z', 'closed', 'MergeRequest'); // NZ 09-28 03:00 NZDT
      await event('2026-01-15T11:30:00Z', 'commented', 'Note'); // UTC 01-15 (today); NZ 01-16 00:30 (today)
      // Not counted by GitLab: reopening, updating, joining, leaving, milestones, an issue approved.
      await event('2025-06-01T12:00:00Z', 'reopened', 'Issue');
      await event('2025-06-01T12:00:00Z', 'updated', 'Issue');
      await event('2025-06-01T12:00:00Z', 'joined');
      await event('2025-06-01T12:00:00Z', 'left');
      await event('2025-06-01T12:00:00Z', 'created', 'Milestone');
      await event('2025-06-01T12:00:00Z', 'reopened', 'MergeRequest');
      // Private: counted only once alice opts in.
      await event('2025-08-01T12:00:00Z', 'pushed', null, priv); // UTC 08-01; NZ 08-02 00:00 (+12)
      await event('2025-08-01T11:59:59Z', 'pushed', null, priv); // UTC 08-01; NZ 08-01 23:59:59
    });
    after(() => server.close());

    const calendar = async () => {
      const res = await get(server.url, '/users/alice/calendar.json');
      assert.equal(res.status, 200);
      return res.body as Record<string, number>;
    };
    const preferences = (body: unknown, bearer = token) =>
      call(server.url, '/api/v4/user/preferences', {
        method: 'PUT',
        headers: { 'PRIVATE-TOKEN': bearer, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });

    it('counts UTC days by default, GitLab’s counted actions only', async () => {
      const res = await get(server.url, '/api/v4/user/preferences', token);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, {
        id: 1,
        user_id: 1,
        timezone: 'UTC',
        include_private_contributions: false,
      });
      assert.deepEqual(await calendar(), {
        '2025-01-16': 2,
        '2025-04-05': 2,
        '2025-04-06': 1,
        '2025-09-27': 3,
        '2026-01-15': 1,
      });
    });

    it('counts the days of Pacific/Auckland once set, each event by its own offset', async () => {
      const res = await preferences({ timezone: 'pacific/auckland' });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, {
        id: 1,
        user_id: 1,
        timezone: 'Pacific/Auckland',
        include_private_contributions: false,
      });
      assert.deepEqual(await calendar(), {
        '2025-01-17': 1,
        '2025-04-06': 3,
        '2025-09-27': 1,
        '2025-09-28': 2,
        '2026-01-16': 1,
      });
      // The profile's heat map draws the same year: 2025-01-17 to 2026-01-16.
      const page = await get(server.url, '/alice');
      const dates = [...page.text.matchAll(/data-date="([\d-]+)"\s+data-count="(\d+)"/g)];
      assert.equal(dates[0]![1], '2025-01-17');
      assert.equal(dates.at(-1)![1], '2026-01-16');
      assert.equal(dates.length, 365);
      assert.deepEqual(
        dates.filter(([, , n]) => n !== '0').map(([, date, n]) => [date, Number(n)]),
        [
          ['2025-01-17', 1],
          ['2025-04-06', 3],
          ['2025-09-27', 1],
          ['2025-09-28', 2],
          ['2026-01-16', 1],
        ],
      );
    });

    it('shows private contributions only when the contributor opts in', async () => {
      let res = await preferences({ include_private_contributions: true });
      assert.equal(res.status, 200);
      assert.equal(
        (res.body as { include_private_contributions: boolean }).include_private_contributions,
        true,
      );
      assert.deepEqual(await calendar(), {
        '2025-01-17': 1,
        '2025-04-06': 3,
        '2025-08-01': 1,
        '2025-08-02': 1,
        '2025-09-27': 1,
        '2025-09-28': 2,
        '2026-01-16': 1,
      });
      res = await preferences({ include_private_contributions: false, timezone: 'UTC' });
      assert.equal(res.status, 200);
      assert.deepEqual(await calendar(), {
        '2025-01-16': 2,
        '2025-04-05': 2,
        '2025-04-06': 1,
        '2025-09-27': 3,
        '2026-01-15': 1,
      });
    });

    it('refuses bad preferences as GitLab does, and leaves them as they were', async () => {
      let res = await preferences({ timezone: 'Mars/Olympus_Mons' });
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { message: { timezone: ['is not a valid time zone'] } });
      res = await preferences({ timezone: '' });
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { message: { timezone: ['is not a valid time zone'] } });
      res = await preferences({ include_private_contributions: 'sometimes' });
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { error: 'include_private_contributions is invalid' });
      res = await preferences({});
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, {
        error:
          'timezone, include_private_contributions are missing, at least one parameter must be provided',
      });
      res = await preferences({ timezone: 'Pacific/Auckland' }, readOnly);
      assert.equal(res.status, 403);
      const kept = await get(server.url, '/api/v4/user/preferences', token);
      assert.equal((kept.body as { timezone: string }).timezone, 'UTC');
    });
  });
}

describe('time zone arithmetic against hand-computed instants', () => {
  it('finds the NZ daylight-saving changes of 2025 to the millisecond', () => {
    const segments = offsetSegments(
      'Pacific/Auckland',
      at('2025-01-01T00:00:00Z'),
      at('2026-01-01T00:00:00Z'),
    );
    const hour = 3_600_000;
    assert.deepEqual(segments, [
      { from: at('2025-01-01T00:00:00Z'), to: at('2025-04-05T14:00:00Z'), offset: 13 * hour },
      { from: at('2025-04-05T14:00:00Z'), to: at('2025-09-27T14:00:00Z'), offset: 12 * hour },
      { from: at('2025-09-27T14:00:00Z'), to: at('2026-01-01T00:00:00Z'), offset: 13 * hour },
    ]);
    assert.equal(zoneOffset('Asia/Kathmandu', at('2025-06-01T00:00:00Z')), 5.75 * hour);
    assert.deepEqual(offsetSegments('UTC', 0, 10 * 86_400_000), [
      { from: 0, to: 10 * 86_400_000, offset: 0 },
    ]);
  });

  it('draws the year from the day after the same date a year ago, in the zone', () => {
    const now = at('2026-01-15T12:00:00Z');
    const day = (iso: string) => at(`${iso}T00:00:00Z`) / 86_400_000;
    assert.deepEqual(calendarDays(now), { first: day('2025-01-16'), last: day('2026-01-15') });
    assert.deepEqual(calendarDays(now, 'Pacific/Auckland'), {
      first: day('2025-01-17'),
      last: day('2026-01-16'),
    });
    assert.deepEqual(calendarDays(at('2024-02-29T12:00:00Z')), {
      first: day('2023-03-01'),
      last: day('2024-02-29'),
    });
  });
});
