/** GitLab's offset pagination headers and Link header, built from the configured external URL. */
import type { FastifyReply } from 'fastify';
import { type NormalizedQuery, queryPieces } from './query.js';

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

export function setPaginationHeaders(
  reply: FastifyReply,
  info: PageInfo,
  externalUrl: string,
  path: string,
  query: NormalizedQuery,
  defaults: Record<string, string>,
): void {
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

  reply.header('x-page', String(info.page));
  reply.header('x-per-page', String(info.perPage));
  reply.header('x-next-page', next);
  reply.header('x-prev-page', prev);
  if (info.total !== null && totalPages !== null) {
    reply.header('x-total', String(info.total));
    reply.header('x-total-pages', String(totalPages));
  }
  reply.header('link', links.join(', '));
}
