/**
 * The pages behind the links in real Chromium, on the demo data, at a 390 px phone and a 1440 px
 * desktop: an issue, a merge request, a milestone and a commit, signed in as alice. Nothing is
 * wider than the screen. Screenshots go to test-artifacts/object-pages/.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { prepareDemo } from '../../src/cli/demo.js';
import { DEMO_PASSWORD } from '../../src/data/demo-catalog.js';
import { BROWSER_SKIP, launchChromium } from '../helpers/browser.js';
import { type TestServer, startServer } from '../helpers/server.js';

declare const document: { documentElement: { scrollWidth: number } };
declare const window: { innerWidth: number };

const ARTIFACTS = new URL('../../test-artifacts/object-pages/', import.meta.url);
const WIDTHS = [
  { name: 'phone', width: 390, height: 844 },
  { name: 'desktop', width: 1440, height: 900 },
] as const;

describe(
  'issue, merge request, milestone and commit pages in Chromium',
  { skip: BROWSER_SKIP },
  () => {
    let server: TestServer;
    let browser: Browser;
    const pages: Record<string, string> = {};

    before(async () => {
      mkdirSync(ARTIFACTS, { recursive: true });
      server = await startServer();
      const banner = await prepareDemo(server.store, server.clock, server.config, () => {});
      const token = /^ {2}(glpat-[A-Za-z0-9_-]+)$/m.exec(banner)![1]!;
      const first = async (path: string) => {
        const res = await fetch(`${server.url}/api/v4${path}`, {
          headers: { 'PRIVATE-TOKEN': token },
        });
        const [item] = (await res.json()) as { web_url: string }[];
        return new URL(item!.web_url).pathname;
      };
      const api = 'acme%2Fplatform%2Fapi';
      pages.issue = await first(`/projects/${api}/issues?per_page=1&sort=asc`);
      pages['merge-request'] = await first(`/projects/${api}/merge_requests?per_page=1&sort=asc`);
      pages.milestone = await first(`/projects/${api}/milestones?per_page=1`);
      const project = await (await fetch(`${server.url}/acme/platform/api?filter=push`)).text();
      pages.commit = /href="(\/acme\/platform\/api\/-\/commit\/[0-9a-f]{40})"/.exec(project)![1]!;
      browser = await launchChromium();
    });
    after(async () => {
      await browser?.close();
      await server?.close();
    });

    for (const { name, width, height } of WIDTHS) {
      it(`at ${width} px: each page renders its object and nothing overflows`, async () => {
        const context = await browser.newContext({ viewport: { width, height } });
        try {
          const page = await context.newPage();
          await page.goto(`${server.url}/users/sign_in`);
          await page.fill('input[name="login"]', 'alice');
          await page.fill('input[name="password"]', DEMO_PASSWORD);
          await Promise.all([
            page.waitForURL((u) => !u.pathname.endsWith('/sign_in')),
            page.click('button[type="submit"]'),
          ]);
          for (const [kind, path] of Object.entries(pages)) {
            const res = await page.goto(`${server.url}${path}`);
            assert.equal(res?.status(), 200, path);
            assert.ok(await page.locator('article.card.object h1').isVisible(), path);
            const widths = await page.evaluate(() => ({
              scroll: document.documentElement.scrollWidth,
              inner: window.innerWidth,
            }));
            await page.screenshot({
              path: new URL(`${kind}-${name}.png`, ARTIFACTS).pathname,
              fullPage: true,
            });
            assert.ok(
              widths.scroll <= widths.inner,
              `${path} at ${width}px: ${JSON.stringify(widths)}`,
            );
          }
        } finally {
          await context.close();
        }
      });
    }
  },
);
