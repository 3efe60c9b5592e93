/**
 * Offset pagination rules (Kaminari as GitLab configures it) and the count cap. GraphQL uses its
 * own cursor arguments but the same page-size bounds and count cap.
 */

export const DEFAULT_PER_PAGE = 20;
export const MAX_PER_PAGE = 100;
/** Counts above this are not reported (GitLab's MAX_COUNT_LIMIT): the count query stops at +1. */
export const MAX_COUNT = 10_000;
/** Pages beyond this are simply past the end; it keeps offsets inside 64-bit integers. */
const MAX_PAGE = 2 ** 31 - 1;

export interface OffsetPage {
  page: number;
  perPage: number;
}

/** An integer as Grape coerces one (sign allowed); anything else is "is invalid". */
export const INTEGER_PATTERN = '^[+-]?\\d+$';
/** per_page=0 is refused ("has a value not allowed"); every other integer is clamped. */
export const ZERO_PATTERN = '^[+-]?0+$';

/** Kaminari's clamps on validated integers: page below 1 is 1; per_page negative is the default. */
export function offsetPageOf(params: { page?: string; per_page?: string }): OffsetPage {
  let page = 1;
  let perPage = DEFAULT_PER_PAGE;
  if (params.page) page = Math.min(Math.max(Number(params.page), 1), MAX_PAGE);
  if (params.per_page) {
    const n = Number(params.per_page);
    if (n > 0) perPage = Math.min(n, MAX_PER_PAGE);
  }
  return { page, perPage };
}

/** A total above the cap is unknown to the client (null), as GitLab omits X-Total then. */
export function reportedTotal(counted: number): number | null {
  return counted > MAX_COUNT ? null : counted;
}
