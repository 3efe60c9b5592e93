/**
 * Conditional requests and the one response cache (GitLab's ETag caching middleware is the model):
 * tagged answers (REST event lists, Atom feeds, GraphQL queries) carry a strong `ETag`, a client
 * holding it gets a 304, and the 200 is kept. Key: the face's kind and revision, the URL or GraphQL
 * document, the viewer. A kept answer stands while every mark it was read under reads the same
 * (docs/listing-caches.md, "One read, room by room").
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
const POLL = String(POLL_INTERVAL_SECONDS);

/** Headers that belong to a body (its type, pagination) and are sent again with it. */
const BODY_HEADERS = [
  'content-type',
  'link',
  'x-total',
  'x-total-pages',
  'x-page',
  'x-per-page',
  'x-next-page',
  'x-prev-page',
];

const MAX_ENTRIES = 10_000;
const MAX_BYTES = 32 * 1024 * 1024;
/** Larger bodies are not worth the memory they would pin. */
const MAX_ENTRY_BYTES = 1024 * 1024;

/** What an answer is keyed by. */
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

/** This request's place in the cache. */
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
    /** The request's key in the response cache and the answer kept under it. */
    conditional: Conditional | null;
  }
}

/** Kept answers of one server, by key: bounded in entries and bytes, the oldest go first. */
export class ResponseCache {
  private readonly entries = new Map<string, Kept>();
  private bytes = 0;

  constructor(readonly services: Services) {}

  get(id: string): Kept | undefined {
    return this.entries.get(id);
  }

  /** The kept answer if every mark it was read under reads the same. */
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

/** One response cache per server, and the request's place in it. */
export function conditionalRequests(app: FastifyInstance, services: Services): void {
  app.decorate('responses', new ResponseCache(services));
  app.decorateRequest('conditional', null);
}

/** The request's place in the cache for `key`. */
function placeOf(request: FastifyRequest, key: CacheKey): Conditional {
  const { config } = request.server.responses.services;
  const { viewer } = key;
  // Every part is in the tag too, so two keys never share one.
  const vary = [
    key.kind,
    key.revision,
    config.externalUrl,
    key.document ?? request.url,
    viewer ? `${viewer.userId}:${viewer.admin ? 1 : 0}` : '-',
    ...(key.extra ?? []),
  ];
  const id = vary.map((part) => `${part.length}:${part}`).join('');
  const keeping = config.pageCache && !urlCarriesCredential(request);
  const metric = key.metric ?? 'response';
  request.conditional = { id, vary, keeping, kept: undefined, metric };
  return request.conditional;
}

/**
 * The validators of a face's one service call, once the request is authenticated (a revoked token
 * is never answered 304): the client's `If-None-Match`, the kept tag, what the body varies by.
 */
export function validators(request: FastifyRequest, key: CacheKey): Validators {
  const place = placeOf(request, key);
  if (place.keeping) place.kept = request.server.responses.get(place.id);
  return { ifNoneMatch: request.headers['if-none-match'], kept: place.kept?.tag, vary: place.vary };
}

/** Sends a face's answer; `present` sets the body's headers and returns the body. */
export async function send<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  answer: ListingAnswer<T>,
  present: (page: T) => Buffer | string,
): Promise<FastifyReply> {
  const place = request.conditional;
  if (answer.notModified) return decide(request, reply, answer.tag, place?.kept);
  if (answer.tag === null || !place) return reply.code(200).send(present(answer.page));
  const marks = answer.mark ? [answer.mark] : [];
  return decide(request, reply, answer.tag, { marks, present: () => present(answer.page) });
}

/**
 * Before parameters are parsed: answers from the kept answer for this key while it stands.
 * Returns false, having answered nothing, otherwise.
 */
export async function answerFromKept(
  request: FastifyRequest,
  reply: FastifyReply,
  key: CacheKey,
): Promise<boolean> {
  const place = placeOf(request, key);
  const kept = place.keeping ? await request.server.responses.standing(place.id) : undefined;
  if (!kept) return false;
  await decide(request, reply, kept.tag, kept);
  return true;
}

/** Sends a body computed under `marks` (read before it was), tagged once computed (GraphQL). */
export async function sendComputed(
  request: FastifyRequest,
  reply: FastifyReply,
  key: CacheKey,
  marks: readonly Mark[],
  body: Buffer,
): Promise<FastifyReply> {
  const place = placeOf(request, key);
  const tag = versionTag(
    place.vary,
    marks.map((m) => m.value),
  );
  return decide(request, reply, tag, { marks, present: () => body });
}

/** A body not sent yet: how to make it, and the marks it is read under. */
interface Fresh {
  marks: readonly Mark[];
  present: () => Buffer | string;
}

/**
 * The one decision: 304 when the client holds `tag` on a conditional read (or there is nothing
 * else to send), else the kept bytes, else the fresh body under `tag`, kept for the request's key.
 */
async function decide(
  request: FastifyRequest,
  reply: FastifyReply,
  tag: string,
  body: Kept | Fresh | undefined,
): Promise<FastifyReply> {
  const { responses } = request.server;
  const conditional = request.method === 'GET' || request.method === 'HEAD';
  if (!body || (conditional && ifNoneMatchMatches(request.headers['if-none-match'], tag))) {
    // Like GitLab: a 304 does not count against the rate limit.
    await refundRequest(responses.services, request, reply);
    for (const name of BODY_HEADERS) reply.removeHeader(name);
    reply.removeHeader('content-length');
    return reply.code(304).header('x-poll-interval', POLL).header('etag', tag).send();
  }
  const place = request.conditional!;
  let bytes: Buffer;
  if ('body' in body) {
    for (const [name, value] of body.headers) reply.header(name, value);
    bytes = body.body;
  } else {
    const made = body.present();
    bytes = typeof made === 'string' ? Buffer.from(made) : made;
    if (place.keeping) {
      const headers: Array<[string, string]> = [];
      for (const name of BODY_HEADERS) {
        const value = reply.getHeader(name);
        if (value !== undefined) headers.push([name, String(value)]);
      }
      responses.keep(place.id, { tag, marks: body.marks, body: bytes, headers });
    }
  }
  if (place.keeping) responses.services.metrics.cacheLookup(place.metric, 'body' in body);
  if (conditional) reply.header('x-poll-interval', POLL).header('etag', tag);
  return reply.code(200).send(bytes);
}
