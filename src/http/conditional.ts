/**
 * Conditional requests and the one response cache (GitLab's ETag caching middleware is the
 * model): every tagged answer (REST event lists, Atom feeds, GraphQL queries) carries a strong
 * `ETag` and `X-Poll-Interval`, a request whose `If-None-Match` holds the current tag gets
 * `304 Not Modified` with its rate-limit hit given back, and the 200 sent under a tag is kept.
 *
 * - Key rule: the face's kind (with the server's revision and external URL), the URL or GraphQL
 *   document, and the viewer (with whatever else the face's body varies by).
 * - Validity rule: a kept answer stands while every mark it was computed from, read again, is
 *   unchanged (services/activity `Mark`: a listing's mark, the listing version, the head).
 *
 * A repeated request is answered from the kept bytes (`answerFromKept`) after authentication and
 * one read of the marks, before parameter parsing and resolution: the URL (or document) and
 * viewer are the ones the answer was kept for, and everything a resolution reads (the project,
 * its visibility, the viewer's membership, the profile) moves the listing version, which every
 * mark holds. Otherwise the face makes its one service call with `validators(…)`, which answers
 * "not modified" when the client or this cache holds the tag, and hands the answer to `send`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ifNoneMatchMatches } from '../domain/etags.js';
import type { Viewer } from '../domain/visibility.js';
import {
  type ListingAnswer,
  type Mark,
  type Validators,
  versionTag,
} from '../services/activity/activity.js';
import type { Services } from '../services/container.js';
import type { CacheName } from '../services/metrics.js';
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

/** Headers that belong to a body and are sent again with it (never per-request ones). */
const BODY_HEADERS = ['content-type', ...TAGGED_HEADERS];

const MAX_ENTRIES = 10_000;
const MAX_BYTES = 32 * 1024 * 1024;
/** Larger bodies are not worth the memory they would pin. */
const MAX_ENTRY_BYTES = 1024 * 1024;

/** What an answer is keyed by (see the key rule above). */
export interface CacheKey {
  kind: string;
  /** The server's revision: a new release may present the same data otherwise. */
  revision: string;
  viewer: Viewer | null;
  /** The GraphQL document (text, operation, variables); the request URL when absent. */
  document?: string;
  /** Anything else the body depends on (GraphQL: the token's scopes, the Accept header). */
  extra?: readonly string[];
  /** The metrics' name of these answers' lookups (`response` when absent). */
  metric?: CacheName;
}

/** A 200 sent under a tag: its bytes and body headers, and the marks it was computed from. */
interface Kept {
  tag: string;
  marks: readonly Mark[];
  body: Buffer;
  headers: Array<[string, string]>;
}

/** This request's place in the cache, once a face asked for its validators. */
interface Conditional {
  id: string;
  vary: string[];
  /** False for a URL carrying a credential, or with the page cache off. */
  keeping: boolean;
  kept: Kept | undefined;
  metric: CacheName;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The server's one response cache (http/conditional.ts). */
    responses: ResponseCache;
  }
  interface FastifyRequest {
    /** Set by `validators`: the key and the kept answer the request's tag is compared with. */
    conditional: Conditional | null;
  }
}

/** Kept answers of one server, by key: bounded in entries and bytes, the oldest go first. */
export class ResponseCache {
  private readonly entries = new Map<string, Kept>();
  private bytes = 0;

  constructor(readonly services: Services) {}

  /** The key's parts: they are also in every tag, so two keys never share one. */
  vary(request: FastifyRequest, key: CacheKey): string[] {
    const { viewer } = key;
    return [
      key.kind,
      key.revision,
      this.services.config.externalUrl,
      key.document ?? request.url,
      viewer ? `${viewer.userId}:${viewer.admin ? 1 : 0}` : '-',
      ...(key.extra ?? []),
    ];
  }

  /** Whether answers to this request may be kept (never under a URL carrying a credential). */
  keeps(request: FastifyRequest): boolean {
    return this.services.config.pageCache && !urlCarriesCredential(request);
  }

  get(id: string): Kept | undefined {
    return this.entries.get(id);
  }

  /** The kept answer if every mark it was computed from reads as it did. */
  async standing(id: string): Promise<Kept | undefined> {
    const kept = this.entries.get(id);
    if (!kept) return undefined;
    for (const mark of kept.marks) if ((await mark.read()) !== mark.value) return undefined;
    return kept;
  }

  keep(id: string, kept: Kept): void {
    if (kept.body.length > MAX_ENTRY_BYTES) return;
    this.drop(id);
    for (const oldest of this.entries.keys()) {
      if (this.entries.size < MAX_ENTRIES && this.bytes + kept.body.length <= MAX_BYTES) break;
      this.drop(oldest);
    }
    this.entries.set(id, kept);
    this.bytes += kept.body.length;
  }

  private drop(id: string): void {
    const old = this.entries.get(id);
    if (!old) return;
    this.entries.delete(id);
    this.bytes -= old.body.length;
  }
}

/** Length-prefixed like strongTag: two different keys never share an id. */
function idOf(vary: readonly string[]): string {
  let id = '';
  for (const part of vary) id += `${part.length}:${part}`;
  return id;
}

/** One response cache per server, and the request's place in it. */
export function conditionalRequests(app: FastifyInstance, services: Services): void {
  app.decorate('responses', new ResponseCache(services));
  app.decorateRequest('conditional', null);
}

/** Whether the request is a conditional read (a tag is sent, and a 304 may be). */
function tagged(request: FastifyRequest): boolean {
  return request.method === 'GET' || request.method === 'HEAD';
}

/**
 * The validators of a face's one service call, once the request is authenticated (so a revoked
 * token or a blocked user is never answered 304): the client's `If-None-Match`, the tag of the
 * answer this cache keeps for the key, and what the body varies by.
 */
export function validators(request: FastifyRequest, key: CacheKey): Validators {
  const cache = request.server.responses;
  const vary = cache.vary(request, key);
  const keeping = cache.keeps(request);
  const id = idOf(vary);
  const kept = keeping ? cache.get(id) : undefined;
  request.conditional = { id, vary, keeping, kept, metric: key.metric ?? 'response' };
  return { ifNoneMatch: request.headers['if-none-match'], kept: kept?.tag, vary };
}

/**
 * Sends a face's answer: 304 when the client holds its tag, the kept bytes when this cache does,
 * else what `present` makes of the page (it sets the body's headers and returns the body), sent
 * under its tag and kept.
 */
export async function send<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  answer: ListingAnswer<T>,
  present: (page: T) => Buffer | string,
): Promise<FastifyReply> {
  const place = request.conditional;
  if (answer.notModified) {
    const kept = place?.kept;
    if (ifNoneMatchMatches(request.headers['if-none-match'], answer.tag) || !kept) {
      return notModified(request, reply, answer.tag);
    }
    return sendKept(request, reply, kept, place.metric);
  }
  const body = present(answer.page);
  if (answer.tag === null || !place) return reply.code(200).send(body);
  if (place.keeping) request.server.responses.services.metrics.cacheLookup(place.metric, false);
  return sendTagged(request, reply, answer.tag, answer.mark ? [answer.mark] : [], body);
}

/**
 * Answers from the kept answer for this key when it still stands: 304 for its tag, else its
 * bytes. Returns false, having answered nothing, otherwise.
 */
export async function answerFromKept(
  request: FastifyRequest,
  reply: FastifyReply,
  key: CacheKey,
): Promise<boolean> {
  const cache = request.server.responses;
  if (!cache.keeps(request)) return false;
  const kept = await cache.standing(idOf(cache.vary(request, key)));
  if (!kept) return false;
  if (tagged(request) && ifNoneMatchMatches(request.headers['if-none-match'], kept.tag)) {
    await notModified(request, reply, kept.tag);
  } else {
    await sendKept(request, reply, kept, key.metric ?? 'response');
  }
  return true;
}

/**
 * Sends a body computed under `marks` (read before it was): tagged on a conditional read, and
 * kept for the key. A GraphQL answer is tagged here, once computed; a 304 it may still be.
 */
export async function sendComputed(
  request: FastifyRequest,
  reply: FastifyReply,
  key: CacheKey,
  marks: readonly Mark[],
  body: Buffer,
): Promise<FastifyReply> {
  const cache = request.server.responses;
  const vary = cache.vary(request, key);
  const keeping = cache.keeps(request);
  const metric = key.metric ?? 'response';
  request.conditional = { id: idOf(vary), vary, keeping, kept: undefined, metric };
  const tag = versionTag(
    vary,
    marks.map((m) => m.value),
  );
  if (tagged(request) && ifNoneMatchMatches(request.headers['if-none-match'], tag)) {
    return notModified(request, reply, tag);
  }
  if (keeping) cache.services.metrics.cacheLookup(metric, false);
  return sendTagged(request, reply, tag, marks, body);
}

function sendTagged(
  request: FastifyRequest,
  reply: FastifyReply,
  tag: string,
  marks: readonly Mark[],
  body: Buffer | string,
): FastifyReply {
  const place = request.conditional!;
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  if (place.keeping) {
    const headers: Array<[string, string]> = [];
    for (const name of BODY_HEADERS) {
      const value = reply.getHeader(name);
      if (value !== undefined) headers.push([name, String(value)]);
    }
    request.server.responses.keep(place.id, { tag, marks, body: bytes, headers });
  }
  if (tagged(request)) {
    reply.header('x-poll-interval', String(POLL_INTERVAL_SECONDS)).header('etag', tag);
  }
  return reply.code(200).send(bytes);
}

async function sendKept(
  request: FastifyRequest,
  reply: FastifyReply,
  kept: Kept,
  metric: CacheName,
): Promise<FastifyReply> {
  request.server.responses.services.metrics.cacheLookup(metric, true);
  for (const [name, value] of kept.headers) reply.header(name, value);
  if (tagged(request)) {
    reply.header('x-poll-interval', String(POLL_INTERVAL_SECONDS)).header('etag', kept.tag);
  }
  return reply.code(200).send(kept.body);
}

async function notModified(
  request: FastifyRequest,
  reply: FastifyReply,
  tag: string,
): Promise<FastifyReply> {
  await refundRequest(request.server.responses.services, request, reply);
  reply.removeHeader('content-type');
  reply.removeHeader('content-length');
  for (const name of TAGGED_HEADERS) reply.removeHeader(name);
  return reply
    .code(304)
    .header('x-poll-interval', String(POLL_INTERVAL_SECONDS))
    .header('etag', tag)
    .send();
}
