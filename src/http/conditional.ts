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
 *
 * A version tag stands for exactly one body, so the response sent under it is kept (bytes and the
 * headers that belong to the body) and sent again to the next request that gets the same tag, with
 * or without `If-None-Match`: the same exactness that lets a poll get a 304 lets a reader get the
 * 200 without the listing. Each request still authenticates and reads the version first.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ifNoneMatchMatches, strongTag } from '../domain/etags.js';
import type { Viewer } from '../domain/visibility.js';
import type { Services } from '../services/container.js';
import { urlCarriesCredential } from './credentials.js';
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

/** Headers that belong to a list's body and are sent again with it (never per-request ones). */
const BODY_HEADERS = ['content-type', ...TAGGED_HEADERS];

/** A 200 sent under a version tag: its bytes and body headers. */
interface KeptResponse {
  body: Buffer;
  headers: Array<[string, string]>;
}

/** What one key's version tag was computed for, and the response sent under it (once known). */
interface Known {
  id: string;
  version: number;
  tag: string;
  response?: KeptResponse;
}

interface Pending {
  /** The parts every tag of this response covers. */
  key: (string | number)[];
  /** The key's entry when the version is settled (its tag is the version tag), else null. */
  known: Known | null;
}

const pending = new WeakMap<FastifyRequest, Pending>();

/**
 * Version tags already computed, by key, with the version they were computed for (and the response
 * sent under them): pollers and readers repeat the same URLs, and a hash per request is a
 * measurable part of a cached answer. Bounded in keys and in kept bytes; the oldest key goes
 * first. A new version replaces a key's entry, so an old version's response is never kept.
 */
const VERSION_TAGS_MAX = 10_000;
const KEPT_BYTES_MAX = 32 * 1024 * 1024;

/** One server's tags and kept responses (a process may run several servers: the tests do). */
interface Tags {
  byKey: Map<string, Known>;
  keptBytes: number;
}

const tagsByServer = new WeakMap<Services, Tags>();

function tagsOf(services: Services): Tags {
  let tags = tagsByServer.get(services);
  if (!tags) {
    tags = { byKey: new Map(), keptBytes: 0 };
    tagsByServer.set(services, tags);
  }
  return tags;
}

function forget(tags: Tags, known: Known | undefined): void {
  if (known?.response) tags.keptBytes -= known.response.body.length;
}

/**
 * The key's entry for `version`, remembered unless `remember` is false (a URL carrying a
 * credential: its tag is computed, but neither kept nor anything sent under it).
 */
function knownTagOf(
  tags: Tags,
  key: readonly (string | number)[],
  version: number,
  remember: boolean,
): Known {
  const tag = () => strongTag(['version', ...key, version]);
  if (!remember) return { id: '', version, tag: tag() };
  const versionTags = tags.byKey;
  // Length-prefixed like strongTag: two different keys never share an id.
  let id = '';
  for (const part of key) {
    const text = String(part);
    id += `${text.length}:${text}`;
  }
  const known = versionTags.get(id);
  if (known && known.version === version) return known;
  const fresh: Known = { id, version, tag: tag() };
  forget(tags, known);
  versionTags.delete(id);
  if (versionTags.size >= VERSION_TAGS_MAX) {
    const oldest = versionTags.keys().next().value!;
    forget(tags, versionTags.get(oldest));
    versionTags.delete(oldest);
  }
  versionTags.set(id, fresh);
  return fresh;
}

/** Keeps the response sent under `known`'s tag, within the byte budget (oldest keys give way). */
function keep(tags: Tags, known: Known, reply: FastifyReply, payload: unknown): void {
  // Kept only while it is its key's entry (never for a URL carrying a credential: see knownTagOf).
  if (known.response || tags.byKey.get(known.id) !== known) return;
  const body = Buffer.isBuffer(payload)
    ? payload
    : typeof payload === 'string'
      ? Buffer.from(payload)
      : null;
  if (!body || body.length > KEPT_BYTES_MAX / 64) return;
  if (tags.keptBytes + body.length > KEPT_BYTES_MAX) {
    for (const other of tags.byKey.values()) {
      if (tags.keptBytes <= KEPT_BYTES_MAX / 2) break;
      forget(tags, other);
      delete other.response;
    }
  }
  const headers: Array<[string, string]> = [];
  for (const name of BODY_HEADERS) {
    const value = reply.getHeader(name);
    if (value !== undefined) headers.push([name, String(value)]);
  }
  known.response = { body, headers };
  tags.keptBytes += body.length;
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
  const known = stamp.settled
    ? knownTagOf(tagsOf(services), key, stamp.version, !urlCarriesCredential(reply))
    : null;
  if (known !== null) {
    if (ifNoneMatchMatches(request.headers['if-none-match'], known.tag)) {
      await notModified(services, request, reply, known.tag);
      return true;
    }
    if (services.config.pageCache) {
      const kept = known.response;
      services.metrics.cacheLookup('response', kept !== undefined);
      if (kept) {
        for (const [name, value] of kept.headers) reply.header(name, value);
        await reply.code(200).header('etag', known.tag).send(kept.body);
        return true;
      }
    }
  }
  pending.set(request, { key, known });
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
    let tag = found.known?.tag ?? null;
    if (found.known && request.method === 'GET' && services.config.pageCache) {
      keep(tagsOf(services), found.known, reply, payload);
    }
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
