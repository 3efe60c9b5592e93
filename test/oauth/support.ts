/**
 * OAuth test support: a server seeded with users, events and registered applications; a thin
 * browser agent (cookie jar + CSRF scrape) that signs in and answers the consent page; and helpers
 * for the token endpoint. Each test file boots its own server (and database).
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import type { Config } from '../../src/config.js';
import { hashPassword } from '../../src/domain/secrets.js';
import type { UserRow } from '../../src/store/schema.js';
import { Fixtures } from '../helpers/fixtures.js';
import { type TestDialect, type TestServer, startServer } from '../helpers/server.js';

export const PASSWORD = 'correct horse battery staple';
export const REDIRECT = 'https://app.example/cb';

export interface RegisteredApp {
  id: number;
  uid: string;
  secret: string;
}

export interface OAuthWorld {
  server: TestServer;
  alice: UserRow;
  bob: UserRow;
  /** Confidential, redirect https://app.example/cb, scopes api read_user. */
  app: RegisteredApp;
  /** Another confidential application (same redirect URI). */
  other: RegisteredApp;
  /** Public client (PKCE required), loopback redirect. */
  publicApp: RegisteredApp;
  close(): Promise<void>;
}

let passwordHash: string | undefined;

export async function startOAuthServer(
  options: { dialect?: TestDialect; config?: Partial<Config> } = {},
): Promise<OAuthWorld> {
  passwordHash ??= await hashPassword(PASSWORD);
  let alice!: UserRow;
  let bob!: UserRow;
  const server = await startServer({
    dialect: options.dialect ?? 'sqlite',
    ...(options.config ? { config: options.config } : {}),
    seed: async (store) => {
      const f = new Fixtures(store);
      alice = await f.user('alice', { passwordHash: passwordHash! });
      bob = await f.user('bob', { passwordHash: passwordHash! });
      const project = await f.project('alice/app', alice.id, 'public');
      await f.member(project.id, alice.id, 50);
      const issue = await f.issue(project.id, alice.id, 'First bug');
      await f.event({
        projectId: project.id,
        authorId: alice.id,
        action: 'created',
        targetType: 'Issue',
        targetId: issue.id,
        issueId: issue.id,
        createdAt: '2026-01-02T10:00:00.000Z',
      });
    },
  });
  const apps = server.services.oauth.applications;
  const register = async (
    name: string,
    redirectUris: string,
    confidential: boolean,
    scopes: string[] = ['api', 'read_user'],
  ): Promise<RegisteredApp> => {
    const { app, secret } = await apps.create(alice.id, {
      name,
      redirectUris,
      scopes,
      confidential,
    });
    return { id: app.id, uid: app.uid, secret };
  };
  const app = await register('Example App', REDIRECT, true);
  const other = await register('Other App', REDIRECT, true);
  const publicApp = await register('Native App', 'http://127.0.0.1/callback', false);
  return { server, alice, bob, app, other, publicApp, close: () => server.close() };
}

/** Another user who signs in with PASSWORD (alice's password hash), e.g. one to spend a throttle on. */
export function addUser(world: OAuthWorld, username: string) {
  return world.server.store.users.create({
    username,
    name: username[0]!.toUpperCase() + username.slice(1),
    email: `${username}@example.com`,
    passwordHash: world.alice.password_hash,
    createdAt: 0,
  });
}

export interface Reply {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
  text: string;
}

async function toReply(res: Response): Promise<Reply> {
  const text = await res.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    /* not JSON: tests look at `text` */
  }
  return { status: res.status, headers: res.headers, body, text };
}

export function basic(id: string, secret: string, encode = true): string {
  const e = (v: string) => (encode ? encodeURIComponent(v) : v);
  return `Basic ${Buffer.from(`${e(id)}:${e(secret)}`).toString('base64')}`;
}

/** POST a form to an OAuth endpoint. */
export async function post(
  server: TestServer,
  path: string,
  form: Record<string, string> | URLSearchParams | string,
  headers: Record<string, string> = {},
): Promise<Reply> {
  const body =
    typeof form === 'string' || form instanceof URLSearchParams ? form : new URLSearchParams(form);
  const res = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body,
    redirect: 'manual',
  });
  return toReply(res);
}

export async function get(
  server: TestServer,
  path: string,
  headers: Record<string, string> = {},
): Promise<Reply> {
  return toReply(await fetch(`${server.url}${path}`, { headers, redirect: 'manual' }));
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** A cookie-keeping client that behaves like a same-origin browser form. */
export class Browser {
  readonly cookies = new Map<string, string>();

  constructor(readonly base: string) {}

  async fetch(
    path: string,
    init: {
      method?: string;
      form?: Record<string, string> | URLSearchParams;
      headers?: Record<string, string>;
    } = {},
  ): Promise<Reply> {
    const headers: Record<string, string> = { ...init.headers };
    if (this.cookies.size > 0) {
      headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    }
    const method = init.method ?? (init.form ? 'POST' : 'GET');
    if (method === 'POST') {
      headers.origin ??= this.base;
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
    const url = path.startsWith('http') ? path : `${this.base}${path}`;
    const res = await fetch(url, {
      method,
      headers,
      redirect: 'manual',
      ...(init.form ? { body: new URLSearchParams(init.form) } : {}),
    });
    for (const cookie of res.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      if (value === '' || /max-age=0/i.test(cookie)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return toReply(res);
  }

  /** Signs in through the form; returns the POST's reply (303 on success). */
  async signIn(login: string, password: string): Promise<Reply> {
    const page = await this.fetch('/users/sign_in');
    assert.equal(page.status, 200);
    return this.fetch('/users/sign_in', {
      form: { authenticity_token: csrfOf(page.text), login, password },
    });
  }

  /** GET the consent page for these parameters and submit it with `decision`. */
  async consent(
    query: Record<string, string>,
    decision: 'approve' | 'deny' = 'approve',
  ): Promise<Reply> {
    const page = await this.fetch(`/oauth/authorize?${new URLSearchParams(query)}`);
    assert.equal(page.status, 200, `consent page: ${page.status} ${page.headers.get('location')}`);
    return this.fetch('/oauth/authorize', { form: { ...hiddenFields(page.text), decision } });
  }
}

/** A browser agent with `login` (alice by default) signed in. */
export async function signedInBrowser(world: OAuthWorld, login = 'alice'): Promise<Browser> {
  const browser = new Browser(world.server.url);
  assert.equal((await browser.signIn(login, PASSWORD)).status, 303);
  return browser;
}

export function csrfOf(html: string): string {
  const match = /name="authenticity_token" value="([^"]+)"/.exec(html);
  assert.ok(match, 'page has a CSRF token');
  return match[1]!;
}

function unescape(value: string): string {
  return value
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&#96;/g, '`')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

export function hiddenFields(html: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)) {
    out[m[1]!] = unescape(m[2]!);
  }
  return out;
}

/** Signs alice in and approves a standard request; returns the redirect URL with the code. */
export async function obtainCode(
  world: OAuthWorld,
  query: Record<string, string> = {},
  browser?: Browser,
): Promise<URL> {
  const agent = browser ?? (await signedInBrowser(world));
  const reply = await agent.consent({
    client_id: world.app.uid,
    redirect_uri: REDIRECT,
    response_type: 'code',
    state: 'xyz',
    ...query,
  });
  assert.equal(reply.status, 302);
  return new URL(reply.headers.get('location')!);
}

/** A code exchanged for tokens with Basic authentication. */
export async function obtainTokens(world: OAuthWorld, app: RegisteredApp = world.app) {
  const location = await obtainCode(world, { client_id: app.uid });
  const reply = await post(
    world.server,
    '/oauth/token',
    {
      grant_type: 'authorization_code',
      code: location.searchParams.get('code')!,
      redirect_uri: REDIRECT,
    },
    { authorization: basic(app.uid, app.secret) },
  );
  assert.equal(reply.status, 200, reply.text);
  return reply.body as { access_token: string; refresh_token: string; scope: string };
}

export async function apiUser(server: TestServer, token: string): Promise<Reply> {
  return get(server, '/api/v4/user', { authorization: `Bearer ${token}` });
}

export const INVALID_GRANT = 'invalid_grant';
