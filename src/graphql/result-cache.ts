/**
 * Whole GraphQL responses, remembered with the exactness of REST's page cache: an entry is served
 * only while the database's data version (SQLite's `PRAGMA data_version` plus our own change
 * count) is the one it was computed under, so any write by any process drops it. Where the store
 * has no such signal (PostgreSQL: `dataVersion()` is null) nothing is cached at all.
 *
 * What a response depends on is the key: the document text, the operation name, the variables,
 * who asks (user id, admin flag, token scopes: scope checks run inside resolvers) and the Accept
 * header (Apollo chooses the content type by it). Every field of
 * the schema is a function of those and the database: no field reads the clock, a random source
 * or request headers. Responses carrying errors and operations other than queries are never kept.
 * Memory is bounded by entry count and by total bytes.
 */
import type { Principal } from '../services/accounts/credentials.js';
import type { Prepared } from './gate.js';

const MAX_ENTRIES = 1_000;
const MAX_BYTES = 32 * 1024 * 1024;
/** Larger responses are not worth the memory they would pin. */
const MAX_ENTRY_BYTES = 1024 * 1024;

export interface CachedResponse {
  contentType: string;
  body: Buffer;
}

export class ResultCache {
  private entries = new Map<string, CachedResponse>();
  private bytes = 0;
  private version: number | null = null;

  constructor(
    private readonly dataVersion: () => number | null,
    private readonly enabled: boolean,
  ) {}

  /**
   * The key and data version for a request that may be cached, or null when it may not: caching
   * off, no exact change signal, or not a query.
   */
  admit(prepared: Prepared): { key: string; version: number } | null {
    if (!this.enabled || prepared.operation !== 'query') return null;
    const version = this.dataVersion();
    if (version === null) return null;
    const key = JSON.stringify([
      prepared.source,
      prepared.operationName ?? null,
      prepared.variables ?? null,
      viewerKey(prepared.principal),
      prepared.accept ?? null,
    ]);
    return { key, version };
  }

  get(ticket: { key: string; version: number }): CachedResponse | undefined {
    if (ticket.version !== this.version) {
      this.clear(ticket.version);
      return undefined;
    }
    return this.entries.get(ticket.key);
  }

  /**
   * Keeps a successful response computed under `ticket.version`; if the data changed while it was
   * computed, the response may already be stale and is dropped.
   */
  set(ticket: { key: string; version: number }, response: CachedResponse): void {
    const { body } = response;
    if (body.length > MAX_ENTRY_BYTES || this.dataVersion() !== ticket.version) return;
    if (ticket.version !== this.version) this.clear(ticket.version);
    const previous = this.entries.get(ticket.key);
    if (previous) {
      this.bytes -= previous.body.length;
      this.entries.delete(ticket.key);
    }
    // Oldest first out: Map iteration follows insertion order.
    while (
      this.entries.size > 0 &&
      (this.entries.size >= MAX_ENTRIES || this.bytes + body.length > MAX_BYTES)
    ) {
      const [oldestKey, oldest] = this.entries.entries().next().value!;
      this.entries.delete(oldestKey);
      this.bytes -= oldest.body.length;
    }
    this.entries.set(ticket.key, response);
    this.bytes += body.length;
  }

  private clear(version: number): void {
    this.entries = new Map();
    this.bytes = 0;
    this.version = version;
  }
}

/** Everything about the caller that resolvers consult: identity, admin flag, token scopes. */
function viewerKey(principal: Principal | null): string {
  if (!principal) return '-';
  const scopes = [...principal.scopes].sort().join(' ');
  return `${principal.user.id}:${principal.viewer.admin ? 1 : 0}:${scopes}`;
}
