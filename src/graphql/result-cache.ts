/**
 * Whole GraphQL responses, remembered with the exactness of REST's kept responses: an entry is
 * served only while everything it was computed from is as it was, checked on every use.
 *
 * What an answer reads (services/activity/activity-reader.ts `EventReads`):
 * - rows of users, projects, memberships and content, whose writes move the listing version (by
 *   triggers, from any process: migration 009), as do deletions of events;
 * - the event listings it paged through, each with its mark (listing-cache.ts `mark`), read before
 *   any of its rows; an append moves only the marks of the listings it belongs to;
 * - events by id (`node`), outside any listing: then the newest event id too.
 * So an entry keeps the version (and deletions) read before it was computed, the head as well when
 * it read an event by id, and its listings' marks. A write to project A leaves a cached answer
 * about project B alone. A mark read before the rows can only be older than what the answer shows,
 * never newer, so a write while an answer is computed costs that answer its next use, no more.
 *
 * What a response depends on besides the data is the key: the document text, the operation name,
 * the variables, who asks (user id, admin flag, token scopes: scope checks run inside resolvers)
 * and the Accept header (Apollo chooses the content type by it). No field reads the clock, a
 * random source or request headers. Responses carrying errors and operations other than queries
 * are never kept. Memory is bounded by entry count and by total bytes.
 */
import type { Principal } from '../services/accounts/credentials.js';
import type { EventReads, VersionMarks } from '../services/activity/activity.js';
import type { Prepared } from './gate.js';

const MAX_ENTRIES = 1_000;
const MAX_BYTES = 32 * 1024 * 1024;
/** Larger responses are not worth the memory they would pin. */
const MAX_ENTRY_BYTES = 1024 * 1024;

export interface CachedResponse {
  contentType: string;
  body: Buffer;
}

interface Entry {
  response: CachedResponse;
  /** The version marks read before the answer was computed. */
  before: VersionMarks;
  /** What the answer read from the event log. */
  reads: EventReads;
}

export class ResultCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  constructor(private readonly enabled: boolean) {}

  /** The key for a request that may be cached, or null when it may not (caching off, not a query). */
  admit(prepared: Prepared): string | null {
    if (!this.enabled || prepared.operation !== 'query') return null;
    return JSON.stringify([
      prepared.source,
      prepared.operationName ?? null,
      prepared.variables ?? null,
      viewerKey(prepared.principal),
      prepared.accept ?? null,
    ]);
  }

  /**
   * The response kept for `key` if nothing it was computed from has changed as of `now`.
   */
  async get(key: string, now: VersionMarks): Promise<CachedResponse | undefined> {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (await this.stands(entry, now)) return entry.response;
    // Only if no newer answer replaced it meanwhile.
    if (this.entries.get(key) === entry) this.drop(key, entry);
    return undefined;
  }

  private async stands(entry: Entry, now: VersionMarks): Promise<boolean> {
    const { before, reads } = entry;
    if (before.version !== now.version) return false;
    if (reads.byId && before.head !== now.head) return false;
    for (const { listing, mark } of reads.listings) {
      if ((await listing.mark()) !== mark) return false;
    }
    return true;
  }

  /** Keeps a successful response, computed after `before` was read, with what it read. */
  set(key: string, response: CachedResponse, before: VersionMarks, reads: EventReads): void {
    const { body } = response;
    if (body.length > MAX_ENTRY_BYTES) return;
    const previous = this.entries.get(key);
    if (previous) this.drop(key, previous);
    // Oldest first out: Map iteration follows insertion order.
    while (
      this.entries.size > 0 &&
      (this.entries.size >= MAX_ENTRIES || this.bytes + body.length > MAX_BYTES)
    ) {
      const [oldestKey, oldest] = this.entries.entries().next().value!;
      this.drop(oldestKey, oldest);
    }
    this.entries.set(key, { response, before, reads });
    this.bytes += body.length;
  }

  private drop(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.bytes -= entry.response.body.length;
  }
}

/** Everything about the caller that resolvers consult: identity, admin flag, token scopes. */
function viewerKey(principal: Principal | null): string {
  if (!principal) return '-';
  const scopes = [...principal.scopes].sort().join(' ');
  return `${principal.user.id}:${principal.viewer.admin ? 1 : 0}:${scopes}`;
}
