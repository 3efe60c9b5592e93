/**
 * Offset pagination rules (Kaminari as GitLab configures it) and the count cap. GraphQL uses its
 * own cursor arguments but the same page-size bounds and count cap.
 */
import { ValidationError } from './errors.js';
import type { RawValue } from './filters.js';

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

const INTEGER = /^[+-]?\d+$/;

export function parseOffsetPage(raw: { page?: RawValue; per_page?: RawValue }): OffsetPage {
  const errors: string[] = [];
  let page = 1;
  let perPage = DEFAULT_PER_PAGE;
  if (raw.page !== undefined && raw.page !== null && raw.page !== '') {
    if (typeof raw.page !== 'string' || !INTEGER.test(raw.page)) errors.push('page is invalid');
    else page = Math.min(Math.max(Number(raw.page), 1), MAX_PAGE);
  }
  if (raw.per_page !== undefined && raw.per_page !== null && raw.per_page !== '') {
    if (typeof raw.per_page !== 'string' || !INTEGER.test(raw.per_page)) {
      errors.push('per_page is invalid');
    } else {
      const n = Number(raw.per_page);
      if (n === 0) errors.push('per_page has a value not allowed');
      else if (n > 0) perPage = Math.min(n, MAX_PER_PAGE);
    }
  }
  if (errors.length > 0) throw new ValidationError(errors);
  return { page, perPage };
}

/** A total above the cap is unknown to the client (null), as GitLab omits X-Total then. */
export function reportedTotal(counted: number): number | null {
  return counted > MAX_COUNT ? null : counted;
}
