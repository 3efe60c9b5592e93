/**
 * A read-through cache for rows that hot paths look up on every request (token, user, project).
 * It is only used where the store can tell when a cached table changed: on SQLite `PRAGMA data_version` reports
 * commits by any process, and the tables' change counters (migration 015) say whether a commit
 * touched the cached table, so entries are dropped the moment their table changes, and kept while
 * other tables (events above all) are written. On PostgreSQL one counter for all these tables is
 * read once per event-loop turn (a shared round trip instead of one per row); before migration
 * 015 nothing is cached there.
 */
import type { RowVersion, RowVersionValue } from './database.js';

const MAX_ENTRIES = 20_000;

export class RowCache<K, V> {
  private readonly entries = new Map<K, V>();
  private version: number | string | null = null;

  constructor(private readonly rowVersion: RowVersion) {}

  /**
   * The current version, with the entries dropped if it moved; null when nothing may be cached.
   * SQLite answers synchronously (no extra turn on the hot path); PostgreSQL after one shared read
   * (none when a reading sent since the request arrived is at hand: per-turn.ts `arrive`).
   */
  private current(): RowVersionValue | Promise<RowVersionValue> {
    const read = this.rowVersion();
    return read instanceof Promise ? read.then((v) => this.adopt(v)) : this.adopt(read);
  }

  private adopt(version: RowVersionValue): RowVersionValue {
    if (version !== null && version !== this.version) {
      this.entries.clear();
      this.version = version;
    }
    return version;
  }

  /**
   * Keeps rows loaded under `version` only if it is still the cache's version: a load that raced
   * a newer version (another request saw a commit meanwhile) may predate that commit.
   */
  private keep(version: RowVersionValue, rows: Iterable<[K, V]>): void {
    if (version === null || version !== this.version) return;
    for (const [key, value] of rows) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
      this.entries.set(key, value);
    }
  }

  async get(key: K, load: (key: K) => Promise<V>): Promise<V> {
    const version = await this.current();
    if (version === null) return load(key);
    if (this.entries.has(key)) return this.entries.get(key)!;
    const value = await load(key);
    this.keep(version, [[key, value]]);
    return value;
  }

  /**
   * The rows of `keys` that exist, in no stated order, loading only the missing ones with one
   * `load` (a batch query by key); `key` names a loaded row's key. Empty `keys` ask nothing.
   */
  async rows<R extends NonNullable<V>>(
    keys: readonly K[],
    load: (missing: K[]) => Promise<R[]>,
    key: (row: R) => K,
  ): Promise<R[]> {
    if (keys.length === 0) return [];
    const found = await this.getMany(keys, async (missing) => {
      const loaded = new Map<K, V>();
      for (const row of await load(missing)) loaded.set(key(row), row satisfies NonNullable<V>);
      return loaded;
    });
    return [...found.values()].filter((row): row is R => row !== undefined && row !== null);
  }

  /** Looks up many keys, loading only the missing ones in one batch. */
  private async getMany(
    keys: readonly K[],
    loadMany: (keys: K[]) => Promise<Map<K, V>>,
  ): Promise<Map<K, V>> {
    const version = await this.current();
    if (version === null) return loadMany([...keys]);
    const out = new Map<K, V>();
    const missing: K[] = [];
    for (const key of keys) {
      if (this.entries.has(key)) out.set(key, this.entries.get(key)!);
      else missing.push(key);
    }
    if (missing.length > 0) {
      const loaded = await loadMany(missing);
      const found: Array<[K, V]> = [];
      for (const key of missing) {
        const value = loaded.get(key);
        if (value !== undefined) {
          found.push([key, value]);
          out.set(key, value);
        }
      }
      this.keep(version, found);
    }
    return out;
  }
}
