/**
 * A read-through cache for rows read on every request (token, user, project, memberships), dropped
 * when their table's change counter (migration 015, database.ts `rowVersion`) moves.
 */

/** Tables with change counters (migrations 015, 028). */
export type CountedTable =
  | 'users'
  | 'projects'
  | 'project_members'
  | 'personal_access_tokens'
  | 'oauth_access_tokens'
  | 'project_stars'
  | 'user_follows';

/** PostgreSQL's single counter for all of them, named in `row_versions`. */
export const ALL_TABLES = 'all';

/** What a row cache is valid for: equal values, same rows; null: do not cache. */
export type RowVersion = () => RowVersionValue | Promise<RowVersionValue>;
export type RowVersionValue = number | string | null;

const MAX_ENTRIES = 20_000;

export class RowCache<K, V> {
  private readonly entries = new Map<K, V>();
  private version: number | string | null = null;

  constructor(private readonly rowVersion: RowVersion) {}

  /** The current version, dropping the entries if it moved; null: nothing may be cached. */
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

  /** Keeps rows loaded under `version` only if it is still current: a racing load may predate it. */
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

  /** The rows of `keys` that exist, in no stated order, loading the missing ones in one batch. */
  async rows<R extends NonNullable<V>>(
    keys: readonly K[],
    load: (missing: K[]) => Promise<R[]>,
    key: (row: R) => K,
  ): Promise<R[]> {
    if (keys.length === 0) return [];
    const version = await this.current();
    if (version === null) return load([...keys]);
    const found = new Map<K, R>();
    const missing: K[] = [];
    for (const k of new Set(keys)) {
      if (!this.entries.has(k)) missing.push(k);
      else if (this.entries.get(k) != null) found.set(k, this.entries.get(k) as R);
    }
    if (missing.length > 0) {
      const loaded = await load(missing);
      for (const row of loaded) found.set(key(row), row);
      this.keep(
        version,
        loaded.map((row) => [key(row), row]),
      );
    }
    return [...found.values()];
  }
}
