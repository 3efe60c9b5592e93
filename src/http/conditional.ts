/**
 * Conditional polling for lists (GitHub's model): every list response carries a strong `ETag` and
 * `X-Poll-Interval`; a request whose `If-None-Match` holds the current tag gets `304 Not Modified`
 * with no body, and its rate-limit hit is given back.
 *
 * Two kinds of tag, both exact:
 * - **version tags**: a hash of what the response is a function of (kind of list, the server's
 *   revision and external URL, the request URL with its parameters, the viewer) and the listing
 *   version (services/activity/listing-version.ts). Checked right after authentication, before the
 *   listing runs: a matching poll costs the authentication and one primary-key read (none at all
 *   on SQLite while nothing was committed), never a listing query.
 * - **body tags**, while the version is unsettled (PostgreSQL, the first seconds after a change):
 *   a hash of the response's bytes and pagination headers, computed as it is sent. A poll
 *   with an equal body still gets a 304, after the listing ran.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ifNoneMatchMatches, strongTag } from '../domain/etags.js';
import type { Viewer } from '../domain/visibility.js';
import type { Services } from '../services/container.js';
import { refundRequest } from './rate-limit.js';

/** Seconds a client should wait between polls. */
export const POLL_INTERVAL_SECONDS = 60;

/** Response headers a list's meaning depends on beside its body (pagination). */
const TAGGED_HEADERS = [
  'link',
  'x-total',
  'x-total-pages',
  'x-page',
  'x-per-page',
  'x-next-page',
  'x-prev-page',
];

interface Pending {
  /** The parts every tag of this response covers. */
  key: (string | number)[];
  /** The version tag, when the version is settled. */
  versionTag: string | null;
}

const pending = new WeakMap<FastifyRequest, Pending>();

/**
 * Version tags already computed, by key, with the version they were computed for: pollers and
 * readers repeat the same URLs, and a hash per request is a measurable part of a cached answer.
 * Bounded; the oldest key goes first.
 */
const VERSION_TAGS_MAX = 10_000;
const versionTags = new Map<string, { version: number; tag: string }>();

function versionTagOf(key: readonly (string | number)[], version: number): string {
  // Length-prefixed like strongTag: two different keys never share an id.
  let id = '';
  for (const part of key) {
    const text = String(part);
    id += `${text.length}:${text}`;
  }
  const known = versionTags.get(id);
  if (known && known.version === version) return known.tag;
  const tag = strongTag(['version', ...key, version]);
  versionTags.delete(id);
  if (versionTags.size >= VERSION_TAGS_MAX) versionTags.delete(versionTags.keys().next().value!);
  versionTags.set(id, { version, tag });
  return tag;
}

/**
 * Call once the request is authenticated (so a revoked token or a blocked user is never answered
 * 304). Answers 304 and returns true when the client's tag is current; otherwise remembers what the
 * response's tag is built from and returns false.
 */
export async function answerIfNotModified(
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
  list: {
    kind: string;
    revision: string;
    viewer: Viewer | null;
    /** Anything else the body depends on (GraphQL: the token's scopes, the Accept header). */
    extra?: readonly string[];
  },
): Promise<boolean> {
  reply.header('x-poll-interval', String(POLL_INTERVAL_SECONDS));
  const { viewer } = list;
  const stamp = await services.listingVersions.stamp();
  const key = [
    list.kind,
    list.revision,
    services.config.externalUrl,
    request.url,
    viewer ? `${viewer.userId}:${viewer.admin ? 1 : 0}` : '-',
    ...(list.extra ?? []),
  ];
  const versionTag = stamp.settled ? versionTagOf(key, stamp.version) : null;
  pending.set(request, { key, versionTag });
  if (versionTag !== null && ifNoneMatchMatches(request.headers['if-none-match'], versionTag)) {
    pending.delete(request);
    await notModified(services, request, reply, versionTag);
    return true;
  }
  return false;
}

/** This response gets no tag after all (e.g. it carries errors that may be passing). */
export function untagged(request: FastifyRequest): void {
  pending.delete(request);
}

async function notModified(
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
  tag: string,
): Promise<void> {
  await refundRequest(services, request, reply);
  reply.removeHeader('content-type');
  reply.removeHeader('content-length');
  for (const name of TAGGED_HEADERS) reply.removeHeader(name);
  await reply.code(304).header('etag', tag).send();
}

/**
 * Tags every 200 of the plugin's conditional lists as it is sent, and turns it into a 304 when the
 * client already holds it (a body tag can only be checked once the body exists).
 */
export function tagResponses(app: FastifyInstance, services: Services): void {
  // A callback hook: it runs on every list response, and only a 304 has anything to wait for.
  app.addHook('onSend', (request, reply, payload, done) => {
    const found = pending.get(request);
    if (!found || reply.statusCode !== 200) return done(null, payload);
    pending.delete(request);
    let tag = found.versionTag;
    if (tag === null) {
      const bytes =
        typeof payload === 'string' || Buffer.isBuffer(payload) ? payload : String(payload);
      const headers = TAGGED_HEADERS.map((name) => String(reply.getHeader(name) ?? ''));
      tag = strongTag(['body', ...found.key, ...headers, bytes]);
    }
    reply.header('etag', tag);
    if (!ifNoneMatchMatches(request.headers['if-none-match'], tag)) return done(null, payload);
    refundRequest(services, request, reply).then(() => {
      reply.code(304);
      reply.removeHeader('content-type');
      reply.removeHeader('content-length');
      for (const name of TAGGED_HEADERS) reply.removeHeader(name);
      done(null, null);
    }, done);
  });
}
