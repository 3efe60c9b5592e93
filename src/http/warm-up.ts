/**
 * Before a server listens, it sends itself reads of public listings through the whole stack
 * (routing, credentials, the rate limit, validation, the listing, hydration, presenting), REST and
 * GraphQL. Right after a start every request also pays for compiling the code it runs, and V8
 * optimizes a function only after it has run many times: on 1,000,000 events the first listings
 * after boot took 7–10 ms, and listings first met after 30 others 5.8–7.2 ms, against 4–4.4 ms
 * after a hundred (`bench:live`, "first requests"). Users meeting a server just restarted or
 * deployed should not pay that; up to a second and a half of start-up does instead.
 *
 * The shapes vary as clients' do: project listings with each filter and several pages and page
 * sizes, the project's authors' listings, GraphQL, and a request with a token that does not verify
 * (the credential lookup every authenticated request makes). Every round asks listings the rounds
 * before it did not (other actions, target types, orders, pages): a listing asked again finds its
 * count and checkpoints kept, so repeating one round would warm the cache and leave cold the code
 * that a listing met for the first time runs (its count, seek and page from the database). Rounds
 * repeat until `ROUNDS` or the time budget.
 *
 * The requests come from an address no network client can have (a socket's remote address is
 * always an IP), so the request log and metrics leave them out (three hundred log lines at every
 * start would bury the ones that matter) and the rate limit lets them through
 * (http/rate-limit.ts); they write nothing.
 */
import type { FastifyInstance, FastifyRequest, InjectOptions } from 'fastify';
import type { Services } from '../services/container.js';
import { ACTIONS, TARGET_TYPES } from '../domain/vocabulary.js';

const WARM_UP_ADDRESS = 'pulsegate-warm-up';

/** Public projects whose listings are read, and authors of theirs whose listings are read. */
const PROJECTS = 3;
const AUTHORS = 3;
/** At most this many rounds, and no new round after the budget (milliseconds). */
const ROUNDS = 8;
const BUDGET_MS = 1_500;

/** Listings: no filter, each action, each target type, in both orders. */
const FILTERS = ['', ...ACTIONS.map((a) => `action=${a}`)].concat(
  Object.keys(TARGET_TYPES).map((t) => `target_type=${t}`),
);
const LISTINGS = FILTERS.flatMap((f) => [f, f ? `${f}&sort=asc` : 'sort=asc']);
/** Pages and page sizes, taken in turn. */
const PAGES = ['', 'page=2', 'page=5', 'per_page=100&page=2', 'page=3', 'per_page=50'];
/** Per round: this many listings of each project, and of each author. */
const PROJECT_LISTINGS = 8;
const AUTHOR_LISTINGS = 3;

/** The `i`th query string of a round's project or author listings: each round its own listings. */
function listingQuery(round: number, i: number, perRound: number): string {
  const n = round * perRound + i;
  const query = [LISTINGS[n % LISTINGS.length]!, PAGES[n % PAGES.length]!].filter(Boolean);
  return query.length > 0 ? `?${query.join('&')}` : '';
}

const GRAPHQL_QUERY = `query WarmUp($id: ID!) {
  project(idOrPath: $id) {
    events(first: 20) { nodes { id actionName createdAt author { username } target { __typename } } }
  }
}`;

/** A token of the personal-token shape that no database holds (its lookup finds nothing). */
const UNKNOWN_TOKEN = 'glpat-pulsegate-warm-up-0000';

/** True for the server's own warm-up requests (a Fastify request, or the raw one under it). */
export function isWarmUp(
  request: FastifyRequest | { socket?: { remoteAddress?: string } },
): boolean {
  const raw = 'raw' in request ? request.raw : request;
  return raw.socket?.remoteAddress === WARM_UP_ADDRESS;
}

export interface WarmUpResult {
  /** Requests sent. */
  sent: number;
  /** Of those, answered with the status they should have (200; 401 for the unknown token). */
  expected: number;
  /** Different URLs among them (each round asks listings of its own). */
  distinct: number;
}

interface WarmUpRequest {
  options: InjectOptions;
  status: number;
}

/**
 * Sends the warm-up requests. Stops early, quietly, once `stopping` says the server is being
 * stopped (a signal during start-up). `rounds` and `budgetMs` bound it (tests pass smaller ones).
 */
export async function warmUp(
  app: FastifyInstance,
  services: Services,
  stopping: () => boolean = () => false,
  { rounds = ROUNDS, budgetMs = BUDGET_MS }: { rounds?: number; budgetMs?: number } = {},
): Promise<WarmUpResult> {
  const result: WarmUpResult = { sent: 0, expected: 0, distinct: 0 };
  const urls = new Set<string>();
  const send = async ({ options, status }: WarmUpRequest) => {
    const response = await app.inject({ ...options, remoteAddress: WARM_UP_ADDRESS });
    result.sent++;
    if (response.statusCode === status) result.expected++;
    urls.add(String(options.url));
    result.distinct = urls.size;
    return response;
  };
  const projects: number[] = [];
  const authors = new Set<number>();
  /** `perRound` listings under `path` for one round, each with its own query string. */
  const listings = (path: string, perRound: number, round: number): WarmUpRequest[] =>
    Array.from({ length: perRound }, (_, i) => ({
      options: { method: 'GET', url: `${path}${listingQuery(round, i, perRound)}` },
      status: 200,
    }));
  /** One round's requests. */
  const requests = (round: number): WarmUpRequest[] => {
    const out: WarmUpRequest[] = [];
    for (const id of projects) {
      out.push(...listings(`/api/v4/projects/${id}/events`, PROJECT_LISTINGS, round), {
        options: {
          method: 'POST',
          url: '/api/graphql',
          payload: { query: GRAPHQL_QUERY, variables: { id: String(id) } },
        },
        status: 200,
      });
    }
    for (const author of authors) {
      out.push(...listings(`/api/v4/users/${author}/events`, AUTHOR_LISTINGS, round));
    }
    if (out.length > 0) {
      out.push({
        options: {
          method: 'GET',
          url: '/api/v4/events',
          headers: { 'private-token': UNKNOWN_TOKEN },
        },
        status: 401,
      });
    }
    return out;
  };
  try {
    for (const id of await services.activity.publicProjectIds(PROJECTS)) {
      if (stopping()) return result;
      projects.push(id);
      const first = await send({
        options: { method: 'GET', url: `/api/v4/projects/${id}/events` },
        status: 200,
      });
      for (const event of first.statusCode === 200
        ? (first.json() as Array<{ author_id?: unknown }>)
        : []) {
        if (typeof event.author_id === 'number' && authors.size < AUTHORS)
          authors.add(event.author_id);
      }
    }
    const started = performance.now();
    for (let round = 0; round < rounds; round++) {
      if (round > 0 && performance.now() - started > budgetMs) break;
      for (const request of requests(round)) {
        if (stopping()) return result;
        await send(request);
      }
    }
  } catch (error) {
    // Closed under it by a stop: nothing left to warm.
    if (stopping()) return result;
    throw error;
  }
  return result;
}
