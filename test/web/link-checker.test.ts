/**
 * The link checker: on a demo server (the data `npm start` loads), every link the API's `web_url`
 * fields, the Atom feeds and the pages emit leads to a page. It follows the API's entities
 * (events, projects, issues, merge requests, milestones, users, groups, namespaces), then crawls
 * same-origin links from the home page, the dashboard, the users' and the projects' pages and
 * the feeds, anonymously and signed in as alice, and fails on any 404 or 5xx, naming the broken
 * links and the page each came from. Bounded: each URL once, at most MAX_CHECKED per visitor,
 * pages of older events (`before=`, `after=`, a day) checked but not crawled, and nothing that
 * acts (forms are never submitted; sign-out is a POST form, not a link).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { prepareDemo } from '../../src/cli/demo.js';
import { DEMO_PASSWORD } from '../../src/data/demo-catalog.js';
import { Browser } from '../oauth/support.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';

const MAX_CHECKED = 1500;
/**
 * Links to one path that differ only in their query's values (a calendar's 365 days, each tab's
 * older pages): the first few are checked, as they are one route with one parameter parser.
 */
const SAME_SHAPE = 3;
const PARALLEL = 8;

interface Found {
  url: string;
  from: string;
}

function unescapeHref(value: string): string {
  return value
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'");
}

/** Every `web_url` in a JSON body, at any depth. */
function webUrls(body: unknown, out: string[] = []): string[] {
  if (Array.isArray(body)) body.forEach((item) => webUrls(item, out));
  else if (body && typeof body === 'object') {
    for (const [key, value] of Object.entries(body)) {
      if (key === 'web_url' && typeof value === 'string') out.push(value);
      else webUrls(value, out);
    }
  }
  return out;
}

/**
 * Links of a page (`href`s) or a feed (`<link href>`; `<id>`s are not links). A feed's `self` is
 * the address it was fetched from, kept without its credentials on purpose: not a link to follow.
 */
function linksOf(text: string): string[] {
  return [...text.matchAll(/<[a-z]+\s([^>]*?)\bhref="([^"]*)"/g)]
    .filter((m) => !/\brel="self"/.test(m[0]))
    .map((m) => unescapeHref(m[2]!));
}

/** Pages whose links are checked but not followed further: older events, a day, row fragments. */
function crawlable(url: URL): boolean {
  return !['before', 'after', 'date', 'fragment', 'page'].some((p) => url.searchParams.has(p));
}

for (const dialect of DIALECTS) {
  describe(`the link checker on the demo data (${dialect})`, { concurrency: 1 }, () => {
    let server: TestServer;
    let token: string;

    before(async () => {
      server = await startServer({ dialect });
      const banner = await prepareDemo(server.store, server.clock, server.config, () => {});
      token = /^ {2}(glpat-[A-Za-z0-9_-]+)$/m.exec(banner)![1]!;
    });
    after(() => server.close());

    /** The `web_url`s of the API's entities, as a client with these headers reads them. */
    async function apiLinks(headers: Record<string, string>): Promise<Found[]> {
      const found: Found[] = [];
      const signedIn = 'PRIVATE-TOKEN' in headers;
      const read = async (path: string) => {
        const res = await fetch(`${server.url}/api/v4${path}`, { headers });
        // What GitLab refuses to anonymous callers (the events of everyone) has no links to check.
        if (!signedIn && (res.status === 401 || res.status === 403)) return [];
        assert.equal(res.status, 200, `GET /api/v4${path}`);
        const body = (await res.json()) as unknown;
        for (const url of webUrls(body)) found.push({ url, from: `/api/v4${path}` });
        return body;
      };
      await read('/events?per_page=100');
      await read('/users?per_page=100');
      await read('/groups?per_page=100');
      if (signedIn) await read('/namespaces?per_page=100');
      await read('/issues?scope=all&per_page=100');
      await read('/merge_requests?scope=all&per_page=100');
      const projects = (await read('/projects?per_page=100')) as { id: number }[];
      for (const { id } of projects) {
        for (const list of ['events', 'issues', 'merge_requests', 'milestones']) {
          await read(`/projects/${id}/${list}?per_page=100`);
        }
      }
      const users = (await read('/users?per_page=100')) as { id: number }[];
      for (const { id } of users) await read(`/users/${id}/events?per_page=100`);
      return found;
    }

    /**
     * Checks every link reachable from the seeds; returns the broken ones. `fetchPage` is the
     * visitor (anonymous fetch, or alice's browser with her session cookie).
     */
    async function crawl(
      seeds: Found[],
      fetchPage: (url: string) => Promise<{ status: number; type: string; text: string }>,
    ): Promise<{ broken: string[]; checked: number }> {
      const origin = new URL(server.url).origin;
      const seen = new Set<string>();
      const shapes = new Map<string, number>();
      const queue: Found[] = [];
      const broken: string[] = [];
      const add = (href: string, from: string) => {
        let url: URL;
        try {
          url = new URL(href, `${origin}${from.startsWith('/') ? from : ''}`);
        } catch {
          broken.push(`${href} (unparsable) from ${from}`);
          return;
        }
        if (url.origin !== origin) return;
        url.hash = '';
        const key = url.pathname + url.search;
        if (seen.has(key)) return;
        seen.add(key);
        if (url.search !== '') {
          const shape = `${url.pathname}?${[...url.searchParams.keys()].sort().join('&')}`;
          const n = shapes.get(shape) ?? 0;
          if (n >= SAME_SHAPE) return;
          shapes.set(shape, n + 1);
        }
        queue.push({ url: key, from });
      };
      for (const seed of seeds) add(seed.url, seed.from);
      let checked = 0;
      while (queue.length > 0 && checked < MAX_CHECKED) {
        const batch = queue.splice(0, PARALLEL);
        checked += batch.length;
        await Promise.all(
          batch.map(async ({ url, from }) => {
            const res = await fetchPage(url);
            if (res.status === 404 || res.status >= 500) {
              broken.push(`${res.status} ${url} (linked from ${from})`);
              return;
            }
            const crawl = crawlable(new URL(url, origin)) && res.status === 200;
            if (crawl && /html|atom/.test(res.type)) {
              for (const href of linksOf(res.text)) add(href, url);
            }
          }),
        );
      }
      if (process.env.LINKS_DEBUG)
        console.log(
          [...seen]
            .map((u) => u.replace(/\d+/g, 'N').replace(/[0-9a-f]{8,}/g, 'H'))
            .sort()
            .join('\n'),
        );
      assert.ok(checked < MAX_CHECKED, `the crawl stopped at ${MAX_CHECKED} links`);
      return { broken, checked };
    }

    const pageSeeds = (extra: string[]): Found[] =>
      ['/', '/alice', '/bob', ...extra].map((url) => ({ url, from: '(start)' }));

    it('anonymous: no link of the API, the feeds or the pages is a 404 or a 5xx', async () => {
      const seeds = [...(await apiLinks({})), ...pageSeeds(['/alice.atom'])];
      const { broken, checked } = await crawl(seeds, async (url) => {
        const res = await fetch(`${server.url}${url}`, {
          headers: { accept: 'text/html' },
          redirect: 'manual',
        });
        return {
          status: res.status,
          type: res.headers.get('content-type') ?? '',
          text: await res.text(),
        };
      });
      assert.deepEqual(broken, [], `${broken.length} broken links:\n${broken.join('\n')}`);
      assert.ok(checked > 100, `checked only ${checked}`);
    });

    it('signed in as alice: no link of the API, the feeds or the pages is a 404 or a 5xx', async () => {
      const alice = new Browser(server.url);
      assert.equal((await alice.signIn('alice', DEMO_PASSWORD)).status, 303);
      const seeds = [
        ...(await apiLinks({ 'PRIVATE-TOKEN': token })),
        ...pageSeeds(['/dashboard/activity']),
      ];
      const { broken, checked } = await crawl(seeds, async (url) => {
        const res = await alice.fetch(url, { headers: { accept: 'text/html' } });
        return { status: res.status, type: res.headers.get('content-type') ?? '', text: res.text };
      });
      assert.deepEqual(broken, [], `${broken.length} broken links:\n${broken.join('\n')}`);
      assert.ok(checked > 100, `checked only ${checked}`);
    });
  });
}
