/**
 * GraphiQL in a real browser: Chromium opens /graphiql (every asset served locally, no CDN), a
 * person pastes a token into Headers, runs a query and sees the results and the schema docs.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { type Browser, chromium } from 'playwright-core';
import { Fixtures } from '../helpers/fixtures.js';
import { type TestServer, startServer } from '../helpers/server.js';

const CHROMIUM = '/usr/bin/chromium';

describe('GraphiQL in Chromium', { skip: !existsSync(CHROMIUM) && 'no /usr/bin/chromium' }, () => {
  let server: TestServer;
  let browser: Browser;
  let token: string;

  before(async () => {
    server = await startServer({
      seed: async (store) => {
        const f = new Fixtures(store);
        const alice = await f.user('alice');
        const project = await f.project('alice/app', alice.id, 'private');
        await f.member(project.id, alice.id, 50);
        const issue = await f.issue(project.id, alice.id, 'Browser-visible bug');
        await f.event({
          projectId: project.id,
          authorId: alice.id,
          action: 'created',
          targetType: 'Issue',
          targetId: issue.id,
          issueId: issue.id,
          createdAt: '2026-01-02T10:00:00.000Z',
        });
        token = await f.token(alice.id, ['read_api']);
      },
    });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  });
  after(async () => {
    await browser?.close();
    await server.close();
  });

  it('runs a query with a token and shows the events', async () => {
    const page = await browser.newPage();
    const offsite: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(server.url)) offsite.push(request.url());
    });
    const consoleErrors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    await page.goto(`${server.url}/graphiql`);
    assert.equal(await page.title(), 'GraphiQL · pulsegate');
    // The schema docs load by introspection, anonymously.
    await page.getByText('currentUser', { exact: false }).first().waitFor();

    await page.click('#tab-headers');
    await page.fill('#headers', JSON.stringify({ Authorization: `Bearer ${token}` }));
    await page.fill(
      '#query',
      '{ currentUser { username } project(idOrPath: "alice/app") { events(first: 5) { totalCount nodes { actionName targetTitle author { username } } } } }',
    );
    await page.click('#run');
    await page.waitForSelector('#result[data-status="200"]');
    const shown = JSON.parse((await page.textContent('#result'))!) as unknown;
    assert.deepEqual(shown, {
      data: {
        currentUser: { username: 'alice' },
        project: {
          events: {
            totalCount: 1,
            nodes: [
              {
                actionName: 'opened',
                targetTitle: 'Browser-visible bug',
                author: { username: 'alice' },
              },
            ],
          },
        },
      },
    });
    assert.match((await page.textContent('#status'))!, /^HTTP 200 · \d+ ms$/);

    // Docs navigation: from Query to the Event type.
    await page.getByRole('link', { name: 'EventConnection' }).first().click();
    await page.getByRole('link', { name: 'Event', exact: true }).first().click();
    await page.getByText('actionName').first().waitFor();

    mkdirSync('test-artifacts', { recursive: true });
    await page.screenshot({ path: 'test-artifacts/graphiql.png', fullPage: true });
    assert.deepEqual(offsite, []);
    assert.deepEqual(consoleErrors, []);
  });

  it('without a token the private project is NOT_FOUND, shown as the API says', async () => {
    const page = await browser.newPage();
    await page.goto(
      `${server.url}/graphiql?query=${encodeURIComponent('{ project(idOrPath: "alice/app") { id } }')}`,
    );
    await page.click('#run');
    await page.waitForSelector('#result[data-status="200"]');
    const shown = JSON.parse((await page.textContent('#result'))!) as {
      errors: Array<{ extensions: { code: string } }>;
    };
    assert.equal(shown.errors[0]!.extensions.code, 'NOT_FOUND');
  });
});
