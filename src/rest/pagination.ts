/** GitLab's offset pagination headers and Link header, built from the configured external URL. */
import type { FastifyReply } from 'fastify';
import { urlCarriesCredential } from '../http/credentials.js';
import { type NormalizedQuery, queryPieces, toQuery } from './query.js';

/** Credential parameters are never echoed into links (they would leak into logs and histories). */
const DROPPED = new Set(['private_token', 'access_token', 'page', 'per_page']);

export interface PageInfo {
  page: number;
  perPage: number;
  /** null when the count is above the reporting cap. */
  total: number | null;
  hasNext: boolean;
  /** Items on this page. */
  count: number;
}

/**
 * Headers already built, by the request URL and page figures they were built from: a cached page
 * is asked for by the same URLs again and again, and the Link header costs a few µs to build.
 * Bounded; the oldest key goes first.
 */
const BUILT_MAX = 10_000;
const built = new Map<string, Array<[string, string]>>();

/**
 * `requestUrl`, when given, is the request's URL (path and query string as sent): equal URLs give
 * equal `path` and `query`, so the headers are built once per URL and page figures. A URL that
 * carries a credential is never kept as a key.
 */
export function setPaginationHeaders(
  reply: FastifyReply,
  info: PageInfo,
  externalUrl: string,
  path: string,
  query: NormalizedQuery,
  defaults: Record<string, string>,
  requestUrl?: string,
): void {
  const key =
    requestUrl === undefined || urlCarriesCredential(reply)
      ? undefined
      : `${info.page}|${info.perPage}|${info.total}|${info.hasNext}|${info.count}|${requestUrl}`;
  let headers = key === undefined ? undefined : built.get(key);
  if (!headers) {
    headers = paginationHeaders(info, externalUrl, path, query, defaults);
    if (key !== undefined) {
      if (built.size >= BUILT_MAX) built.delete(built.keys().next().value!);
      built.set(key, headers);
    }
  }
  for (const [name, value] of headers) reply.header(name, value);
}

function paginationHeaders(
  info: PageInfo,
  externalUrl: string,
  path: string,
  query: NormalizedQuery,
  defaults: Record<string, string>,
): Array<[string, string]> {
  const totalPages = info.total === null ? null : Math.max(Math.ceil(info.total / info.perPage), 1);
  // Without a count, an empty page past the first is out of range (Kaminari's without_count).
  const outOfRange =
    totalPages !== null ? info.page > totalPages : info.page > 1 && info.count === 0;
  const next = !outOfRange && info.hasNext ? String(info.page + 1) : '';
  const prev = !outOfRange && info.page > 1 ? String(info.page - 1) : '';

  const base: NormalizedQuery = { ...defaults };
  for (const [key, value] of Object.entries(query)) {
    if (!DROPPED.has(key)) base[key] = value;
  }
  // The request's own parameters are encoded once; each link adds its page (digits need no escaping).
  const pieces = queryPieces(base);
  const link = (page: number, rel: string) =>
    `<${externalUrl}${path}?${[...pieces, `page=${page}`, `per_page=${info.perPage}`].sort().join('&')}>; rel="${rel}"`;
  const links: string[] = [];
  if (prev) links.push(link(info.page - 1, 'prev'));
  if (next) links.push(link(info.page + 1, 'next'));
  links.push(link(1, 'first'));
  if (totalPages !== null) links.push(link(totalPages, 'last'));

  const headers: Array<[string, string]> = [
    ['x-page', String(info.page)],
    ['x-per-page', String(info.perPage)],
    ['x-next-page', next],
    ['x-prev-page', prev],
  ];
  if (info.total !== null && totalPages !== null) {
    headers.push(['x-total', String(info.total)], ['x-total-pages', String(totalPages)]);
  }
  headers.push(['link', links.join(', ')]);
  return headers;
}

/**
 * GitLab's keyset pagination headers: only a `Link` to the next page, when there is one, with the
 * request's parameters and the id the next page starts after (`id_after`, ascending) or before
 * (`id_before`, descending). No page numbers, no totals.
 */
export function setKeysetLink(
  reply: FastifyReply,
  externalUrl: string,
  path: string,
  query: NormalizedQuery,
  next: { key: 'id_after' | 'id_before'; id: number } | null,
): void {
  if (next === null) return;
  const params: NormalizedQuery = {};
  for (const [key, value] of Object.entries(query)) {
    if (!DROPPED.has(key) || key === 'per_page') params[key] = value;
  }
  delete params.id_after;
  delete params.id_before;
  params[next.key] = String(next.id);
  reply.header('link', `<${externalUrl}${path}?${toQuery(params)}>; rel="next"`);
}
