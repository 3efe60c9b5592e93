/**
 * The real GraphiQL 3.8.3 in a real browser (Debian's Chromium through playwright-core): every
 * asset comes from this server, a person types a token into GraphiQL's Headers editor, runs a query
 * with GraphiQL's run button, reads the result editor and walks the Docs explorer to `Event`.
 * In CI (CI=true) a missing /usr/bin/chromium fails the suite; elsewhere the suite is skipped,
 * saying why.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { BROWSER_SKIP, launchChromium } from '../helpers/browser.js';
import { Fixtures } from '../helpers/fixtures.js';
import { type TestServer, startServer } from '../helpers/server.js';

// The DOM as seen from page.evaluate callbacks (the project's TypeScript has no DOM library).
declare const document: {
  querySelector(selector: string): unknown;
  documentElement: { scrollWidth: number };
};
declare const window: { localStorage: Record<string, string> };

const ARTIFACTS = new URL('../../test-artifacts/', import.meta.url);

/** What a page did that the tests forbid: off-site requests and console errors. */
interface Watched {
  page: Page;
  offsite: string[];
  consoleErrors: string[];
}

/** A GraphiQL editor's text, from its CodeMirror instance (every line, not only those drawn). */
function editorText(page: Page, selector: string): Promise<string> {
  return page.$eval(selector, (element) => {
    const editor = (element as unknown as { CodeMirror: { getValue(): string } }).CodeMirror;
    return editor.getValue();
  });
}

const QUERY_EDITOR = '.graphiql-query-editor .CodeMirror';
const HEADERS_EDITOR = '.graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror';
const RESULT_EDITOR = '.result-window .CodeMirror';

/**
 * Replaces the query as a paste would (typing would fight the editor's completion popups), then
 * waits until GraphiQL has taken it in: it re-reads the operation 100 ms after a change and only
 * then calls onEditQuery, which writes the query into the address bar.
 */
async function putQuery(page: Page, query: string): Promise<void> {
  await page.locator(QUERY_EDITOR).click();
  await page.keyboard.press('Control+A');
  await page.keyboard.insertText(query);
  await page.waitForURL((url) => url.searchParams.get('query') === query);
}

/** The end cursor the result editor shows (opaque: read back rather than predicted). */
async function endCursor(page: Page): Promise<string | null> {
  const shown = JSON.parse(await editorText(page, RESULT_EDITOR)) as {
    data?: { events?: { pageInfo?: { endCursor?: string | null } } };
  };
  return shown.data?.events?.pageInfo?.endCursor ?? null;
}

/** Runs the query with GraphiQL's run button and returns the parsed result editor's text. */
async function run(page: Page): Promise<unknown> {
  await page.getByRole('button', { name: 'Execute query (Ctrl-Enter)' }).click();
  await page.waitForFunction((selector) => {
    const element = document.querySelector(selector) as unknown as {
      CodeMirror?: { getValue(): string };
    } | null;
    return (element?.CodeMirror?.getValue() ?? '').trim().startsWith('{');
  }, RESULT_EDITOR);
  return JSON.parse(await editorText(page, RESULT_EDITOR)) as unknown;
}

describe('GraphiQL in Chromium', { skip: BROWSER_SKIP }, () => {
  let server: TestServer;
  let browser: Browser;
  let token: string;
  let aliceId: number;

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    server = await startServer({
      seed: async (store) => {
        const f = new Fixtures(store);
        const alice = await f.user('alice');
        aliceId = alice.id;
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
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  async function open(
    path: string,
    options: { session?: string; width?: number; height?: number } = {},
  ): Promise<Watched> {
    const context = await browser.newContext({
      viewport: { width: options.width ?? 1280, height: options.height ?? 800 },
    });
    if (options.session) {
      await context.addCookies([
        { name: '_pulsegate_session', value: options.session, url: server.url, httpOnly: true },
      ]);
    }
    const page = await context.newPage();
    const watched: Watched = { page, offsite: [], consoleErrors: [] };
    page.on('request', (request) => {
      const url = request.url();
      // data: URIs (GraphiQL's fonts and icons) are inline, not requests to anyone.
      if (!url.startsWith(`${server.url}/`) && !url.startsWith('data:')) watched.offsite.push(url);
    });
    page.on('console', (message) => {
      if (message.type() === 'error') watched.consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => watched.consoleErrors.push(error.message));
    await page.goto(`${server.url}${path}`);
    await page.locator('.graphiql-container').waitFor();
    return watched;
  }

  it('runs a query with a token typed into Headers, shows the data and the Event docs', async () => {
    const { page, offsite, consoleErrors } = await open('/graphiql');
    assert.equal(await page.title(), 'GraphiQL · pulsegate');
    // The helpful default query greets the user with a runnable example.
    const initial = await editorText(page, QUERY_EDITOR);
    assert.match(initial, /^# Welcome to pulsegate's GraphiQL\./);
    assert.match(initial, /\n {2}currentUser \{\n/);
    assert.match(initial, /\n {2}events\(first: 5\) \{\n/);

    // Headers, as a person types them: click the tab, click the editor, select all, type.
    await page.locator('.graphiql-editor-tools button[data-name="headers"]').click();
    await page.locator(HEADERS_EDITOR).click();
    await page.keyboard.press('Control+A');
    await page.keyboard.type(`{"Authorization": "Bearer ${token}"}`);
    assert.deepEqual(JSON.parse(await editorText(page, HEADERS_EDITOR)), {
      Authorization: `Bearer ${token}`,
    });

    await putQuery(
      page,
      '{ currentUser { username } project(idOrPath: "alice/app") { events(first: 5) { totalCount nodes { actionName targetTitle author { username } } } } }',
    );
    assert.deepEqual(await run(page), {
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

    // Docs: Query → events → EventConnection → nodes → Event.
    await page.getByRole('button', { name: 'Show Documentation Explorer' }).click();
    const title = page.locator('.graphiql-doc-explorer-title');
    await page.locator('a.graphiql-doc-explorer-type-name', { hasText: /^Query$/ }).click();
    await title.filter({ hasText: /^Query$/ }).waitFor();
    await page.locator('a.graphiql-doc-explorer-field-name', { hasText: /^events$/ }).click();
    await title.filter({ hasText: /^events$/ }).waitFor();
    await page
      .locator('a.graphiql-doc-explorer-type-name', { hasText: /^EventConnection$/ })
      .click();
    await title.filter({ hasText: /^EventConnection$/ }).waitFor();
    await page
      .locator('a.graphiql-doc-explorer-type-name', { hasText: /^Event$/ })
      .first()
      .click();
    await title.filter({ hasText: /^Event$/ }).waitFor();
    await page.locator('a.graphiql-doc-explorer-field-name', { hasText: /^actionName$/ }).waitFor();
    await page.getByText('As REST action_name ("opened", "pushed to", …).').waitFor();

    // The token lives in the page only: nothing GraphiQL stored carries it.
    const stored = await page.evaluate(() => JSON.stringify({ ...window.localStorage }));
    assert.ok(stored.includes('currentUser'), 'GraphiQL keeps the query in localStorage');
    assert.ok(!stored.includes(token), 'the token must never reach localStorage');
    assert.ok(!page.url().includes(token));

    // Re-indent the one-line query so the screenshot reads well.
    await page.getByRole('button', { name: 'Prettify query (Shift-Ctrl-P)' }).click();
    await page.waitForFunction(
      (selector) =>
        (
          document.querySelector(selector) as unknown as { CodeMirror: { lineCount(): number } }
        ).CodeMirror.lineCount() > 10,
      QUERY_EDITOR,
    );
    await page.screenshot({ path: new URL('graphiql.png', ARTIFACTS).pathname });
    assert.deepEqual(offsite, []);
    assert.deepEqual(consoleErrors, []);

    // After a reload the headers are gone (not persisted) while the query is restored.
    await page.reload();
    await page.locator('.graphiql-container').waitFor();
    await page.locator('.graphiql-editor-tools button[data-name="headers"]').click();
    assert.equal(await editorText(page, HEADERS_EDITOR), '');
    assert.match(await editorText(page, QUERY_EDITOR), /project\(idOrPath: "alice\/app"\)/);
    await page.context().close();
  });

  it('without a token the private project is NOT_FOUND, shown as the API says', async () => {
    const query = 'query Probe($path: ID!) { project(idOrPath: $path) { id } }';
    const variables = '{"path": "alice/app"}';
    const { page, offsite, consoleErrors } = await open(
      `/graphiql?query=${encodeURIComponent(query)}&variables=${encodeURIComponent(variables)}`,
    );
    // The link's query and variables are what the editors hold.
    assert.equal(await editorText(page, QUERY_EDITOR), query);
    await page.locator('.graphiql-editor-tools button[data-name="variables"]').click();
    assert.equal(
      await editorText(page, '.graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror'),
      variables,
    );
    const shown = (await run(page)) as {
      data: unknown;
      errors: Array<{ message: string; path: string[]; extensions: { code: string } }>;
    };
    assert.equal(shown.errors.length, 1);
    assert.equal(shown.errors[0]!.extensions.code, 'NOT_FOUND');
    assert.deepEqual(shown.errors[0]!.path, ['project']);
    assert.deepEqual(shown.data, { project: null });
    assert.deepEqual(offsite, []);
    assert.deepEqual(consoleErrors, []);
    await page.context().close();
  });

  it('writes edits back into the address, so the page can be shared', async () => {
    const { page, consoleErrors } = await open('/graphiql');
    await putQuery(page, '{ currentUser { id } }');
    assert.equal(new URL(page.url()).pathname, '/graphiql');
    assert.deepEqual(await run(page), { data: { currentUser: null } });
    assert.deepEqual(consoleErrors, []);
    await page.context().close();
  });

  it('a query typed and run at once runs (no stale operation name from the last query)', async () => {
    const { page, consoleErrors } = await open('/graphiql');
    // The default query names its operation (MyActivity); replace it and run without a pause.
    await page.locator(QUERY_EDITOR).click();
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText('{ currentUser { id } }');
    assert.deepEqual(await run(page), { data: { currentUser: null } });
    // And the other way: a named operation typed over an anonymous one runs too.
    await page.locator(QUERY_EDITOR).click();
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText('query Again { currentUser { username } }');
    await page.getByRole('button', { name: 'Execute query (Ctrl-Enter)' }).click();
    await page.waitForFunction(
      (selector) =>
        (
          document.querySelector(selector) as unknown as { CodeMirror: { getValue(): string } }
        ).CodeMirror.getValue().includes('"username"') ||
        (
          document.querySelector(selector) as unknown as { CodeMirror: { getValue(): string } }
        ).CodeMirror.getValue().includes('"currentUser": null'),
      RESULT_EDITOR,
    );
    assert.deepEqual(JSON.parse(await editorText(page, RESULT_EDITOR)), {
      data: { currentUser: null },
    });
    assert.deepEqual(consoleErrors, []);
    await page.context().close();
  });

  it('signed in, GraphiQL runs as the user with no token pasted; the welcome fits the pane', async () => {
    const session = await server.services.oauth.sessions.signIn(null, aliceId);
    const { page, offsite, consoleErrors } = await open('/graphiql', { session: session.id });
    const welcome = await editorText(page, QUERY_EDITOR);
    assert.match(
      welcome,
      /^# Welcome to pulsegate's GraphiQL\.\n#\n# Signed in as alice: queries run as you\n/,
    );
    // No line of the welcome runs past the editor pane (no horizontal scrolling).
    const overflow = await page.$eval('.graphiql-query-editor .CodeMirror-scroll', (element) => {
      const e = element as unknown as { scrollWidth: number; clientWidth: number };
      return e.scrollWidth - e.clientWidth;
    });
    assert.ok(overflow <= 0, `the welcome overflows the pane by ${overflow} px`);
    await page.screenshot({ path: new URL('graphiql-signed-in.png', ARTIFACTS).pathname });
    assert.deepEqual(await run(page), {
      data: {
        currentUser: { username: 'alice' },
        events: {
          totalCount: 1,
          nodes: [
            {
              actionName: 'opened',
              createdAt: '2026-01-02T10:00:00.000Z',
              targetTitle: 'Browser-visible bug',
              project: { fullPath: 'alice/app' },
            },
          ],
          pageInfo: { hasNextPage: false, endCursor: (await endCursor(page)) ?? null },
        },
      },
    });
    assert.deepEqual(offsite, []);
    assert.deepEqual(consoleErrors, []);
    await page.context().close();

    // The same session on a phone: a screenshot for the record.
    const phone = await open('/graphiql', { session: session.id, width: 390, height: 844 });
    await phone.page.screenshot({ path: new URL('graphiql-phone.png', ARTIFACTS).pathname });
    await phone.page.context().close();
  });
});
