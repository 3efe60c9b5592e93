/** Shared setup for the write tests: a server, users with tokens, and a JSON client. */
import type { Config } from '../../src/config.js';
import { Fixtures } from '../helpers/fixtures.js';
import { type HttpResult, call } from '../helpers/http.js';
import { type TestDialect, type TestServer, startServer } from '../helpers/server.js';

export interface Actors {
  server: TestServer;
  fx: Fixtures;
  /** Tokens with scope `api`, by username. */
  tokens: Record<string, string>;
  ids: Record<string, number>;
}

export async function startWithUsers(
  dialect: TestDialect,
  usernames: string[] = ['alice', 'bob', 'carol', 'dave'],
  config: Partial<Config> = {},
): Promise<Actors> {
  const server = await startServer({ dialect, config });
  const fx = new Fixtures(server.store);
  const tokens: Record<string, string> = {};
  const ids: Record<string, number> = {};
  for (const username of usernames) {
    const user = await fx.user(username, { admin: username === 'root' });
    ids[username] = user.id;
    tokens[username] = await fx.token(user.id, ['api']);
  }
  return { server, fx, tokens, ids };
}

/** One API call with JSON in and out, as a GitLab client makes it. */
export function api(
  server: TestServer,
  method: string,
  path: string,
  token: string | undefined,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<HttpResult> {
  return call(server.url, `/api/v4${path}`, {
    method,
    headers: {
      ...(token ? { 'PRIVATE-TOKEN': token } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
}

/** The fields of an event list that say what happened, oldest first. */
export function story(body: unknown): string[] {
  if (!Array.isArray(body)) throw new Error(`not a list: ${JSON.stringify(body)}`);
  return body
    .map(
      (e: {
        author_username: string;
        action_name: string;
        target_type: string | null;
        target_title: string | null;
      }) =>
        `${e.author_username} ${e.action_name} ${e.target_type ?? '-'}${e.target_title ? ` ${e.target_title}` : ''}`,
    )
    .reverse();
}
