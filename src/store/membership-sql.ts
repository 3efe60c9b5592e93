/** domain/membership-expiry's rule as SQL, so every query that reads a membership applies it. */
import { type RawBuilder, sql } from 'kysely';

/**
 * `membershipActive(expires_at, day)` over a membership's `expires_at` column (`m.expires_at`):
 * no expiry, or an expiry day after `day` (YYYY-MM-DD strings compare as the days they name).
 */
export function activeOn(column: string, day: string): RawBuilder<boolean> {
  const ref = sql.ref(column);
  return sql<boolean>`(${ref} IS NULL OR ${ref} > ${day})`;
}
