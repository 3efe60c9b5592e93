/**
 * Conditional polling for lists (GitHub's model): every list response carries a strong `ETag` and
 * `X-Poll-Interval`; a request whose `If-None-Match` holds the current tag gets `304 Not Modified`
 * with no body, and its rate-limit hit is given back.
 *
 * The tag is a hash of what the response is a function of: the kind of list, the server's revision
 * and external URL, the request URL with its parameters, the viewer, and the listing's **mark**
 * (services/activity/listing-cache.ts: the listing version, which moves when what written events
 * show changes, and the newest event the change feed saw that this listing could show). It is
 * checked right after authentication, before the listing runs: a matching poll costs the
 * authentication and the mark (no query while nothing was committed), never a listing query. A
 * write to project A leaves the tags of project B's listings as they were.
 *
 * The mark is read before the listing is: a write landing in between makes the body newer than its
 * tag, and the next poll then reads a newer mark and gets a 200 (never a stale 304).
 *
 * A tag stands for exactly one body, so the response sent under it is kept (bytes and the headers
 * that belong to the body) and sent again to the next request that gets the same tag, with or
 * without `If-None-Match`: the same exactness that lets a poll get a 304 lets a reader get the 200
 * without the listing. Each request still authenticates and reads the mark first.
 *
 * A route may also answer from a kept response before its handler runs (`answerFromKept`, REST
 * listings): a kept response remembers how its listing's mark is read again (`remark`), so a
 * repeated request costs the authentication and that mark, not the parameters' parsing and checks
 * or the listing's resolution. Sound because the response was kept for this exact URL (its
 * parameters passed their checks) and viewer, and everything the resolution reads (the project,
 * its visibility, the viewer's membership, the profile) moves the listing version, which is in
 * the mark: a changed resolution never meets an equal mark.
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
  version: string;
  tag: string;
  response?: KeptResponse;
  /** Reads the listing's mark again, as of now (set by routes that answer from kept responses). */
  remark?: Remark;
}

/**
 * How a listing's current mark is read again without resolving the listing (`answerFromKept`).
 */
export type Remark = () => Promise<string>;

/** What a list's version tag is keyed by besides its URL and version. */
interface ListKey {
  kind: string;
  revision: string;
  viewer: Viewer | null;
  /** Anything else the body depends on (GraphQL: the token's scopes, the Accept header). */
  extra?: readonly string[];
}

/** The tag each list request in progress will be sent with. */
const pending = new WeakMap<FastifyRequest, Known>();

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
function knownTagOf(tags: Tags, key: readonly string[], version: string, remember: boolean): Known {
  const tag = () => strongTag(['version', ...key, version]);
  if (!remember) return { id: '', version, tag: tag() };
  const versionTags = tags.byKey;
  const id = idOf(key);
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

/** Length-prefixed like strongTag: two different keys never share an id. */
function idOf(key: readonly string[]): string {
  let id = '';
  for (const part of key) id += `${part.length}:${part}`;
  return id;
}

function keyOf(services: Services, request: FastifyRequest, list: ListKey): string[] {
  const { viewer } = list;
  return [
    list.kind,
    list.revision,
    services.config.externalUrl,
    request.url,
    viewer ? `${viewer.userId}:${viewer.admin ? 1 : 0}` : '-',
    ...(list.extra ?? []),
  ];
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
  list: ListKey & {
    /** The listing's mark (ActivityService `mark`, or `versionMarks().head` for answers reading any). */
    mark: string;
    /** How the mark is read again, for `answerFromKept` (REST listings). */
    remark?: Remark;
  },
): Promise<boolean> {
  reply.header('x-poll-interval', String(POLL_INTERVAL_SECONDS));
  const key = keyOf(services, request, list);
  const known = knownTagOf(tagsOf(services), key, list.mark, !urlCarriesCredential(reply));
  const keeping = services.config.pageCache && known.id !== '';
  if (await answerUnder(services, request, reply, known, keeping ? known.response : undefined)) {
    return true;
  }
  if (keeping) {
    services.metrics.cacheLookup('response', false);
    if (list.remark) known.remark = list.remark;
  }
  pending.set(request, known);
  return false;
}

/**
 * Before a route's handler (once the request is authenticated): answers with the response kept
 * for this URL and viewer, or 304 for its tag, when the listing's mark read again still equals
 * the one it was kept under. Returns false, having answered nothing, otherwise: the handler then
 * runs as if this had not been called.
 */
export async function answerFromKept(
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
  list: ListKey,
): Promise<boolean> {
  if (!services.config.pageCache || request.method !== 'GET' || urlCarriesCredential(reply)) {
    return false;
  }
  const known = tagsOf(services).byKey.get(idOf(keyOf(services, request, list)));
  // Taken before the wait: the budget may drop it meanwhile, and it stays exact for its version.
  const kept = known?.response;
  if (!known?.remark || !kept) return false;
  if ((await known.remark()) !== known.version) return false;
  reply.header('x-poll-interval', String(POLL_INTERVAL_SECONDS));
  return answerUnder(services, request, reply, known, kept);
}

/**
 * Answers under `known`'s tag: 304 when the client holds it, else the response kept under it, if
 * any (a hit). Returns false, having answered nothing, when there is neither.
 */
async function answerUnder(
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
  known: Known,
  kept: KeptResponse | undefined,
): Promise<boolean> {
  if (ifNoneMatchMatches(request.headers['if-none-match'], known.tag)) {
    await notModified(services, request, reply, known.tag);
    return true;
  }
  if (!kept) return false;
  services.metrics.cacheLookup('response', true);
  for (const [name, value] of kept.headers) reply.header(name, value);
  await reply.code(200).header('etag', known.tag).send(kept.body);
  return true;
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

/** Tags every 200 of the plugin's conditional lists as it is sent, and keeps its response. */
export function tagResponses(app: FastifyInstance, services: Services): void {
  // A callback hook: it runs on every list response and never waits.
  app.addHook('onSend', (request, reply, payload, done) => {
    const known = pending.get(request);
    if (!known || reply.statusCode !== 200) return done(null, payload);
    pending.delete(request);
    if (request.method === 'GET' && services.config.pageCache) {
      keep(tagsOf(services), known, reply, payload);
    }
    reply.header('etag', known.tag);
    done(null, payload);
  });
}
