/**
 * A read-through cache for rows that hot paths look up on every request (token, user, project).
 * It is only used where the store can see every write: on SQLite `PRAGMA data_version` reports
 * commits by any process, and the tables' change counters (migration 015) say whether a commit
 * touched the cached table, so entries are dropped the moment their table changes, and kept while
 * other tables (events above all) are written. Where no such signal exists (PostgreSQL, many
 * processes), the cache stays empty and every lookup hits the database.
 */
import type { RowVersion } from './database.js';

const MAX_ENTRIES = 20_000;

export class RowCache<K, V> {
  private readonly entries = new Map<K, V>();
  private version: number | string | null = null;

  constructor(private readonly rowVersion: RowVersion) {}

  /** Whether the cache can be used at all (the database reports its version). */
  private fresh(): boolean {
    const current = this.rowVersion();
    if (current === null) return false;
    if (current !== this.version) {
      this.entries.clear();
      this.version = current;
    }
    return true;
  }

  async get(key: K, load: (key: K) => Promise<V>): Promise<V> {
    if (!this.fresh()) return load(key);
    if (this.entries.has(key)) return this.entries.get(key)!;
    const value = await load(key);
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(key, value);
    return value;
  }

  /** Looks up many keys, loading only the missing ones in one batch. */
  async getMany(
    keys: readonly K[],
    loadMany: (keys: K[]) => Promise<Map<K, V>>,
  ): Promise<Map<K, V>> {
    if (!this.fresh()) return loadMany([...keys]);
    const out = new Map<K, V>();
    const missing: K[] = [];
    for (const key of keys) {
      if (this.entries.has(key)) out.set(key, this.entries.get(key)!);
      else missing.push(key);
    }
    if (missing.length > 0) {
      const loaded = await loadMany(missing);
      if (this.entries.size + missing.length >= MAX_ENTRIES) this.entries.clear();
      for (const key of missing) {
        const value = loaded.get(key);
        if (value !== undefined) {
          this.entries.set(key, value);
          out.set(key, value);
        }
      }
    }
    return out;
  }
}
