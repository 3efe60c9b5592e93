/**
 * The canonical text of a record: the kind's fields in the order its schema lists them, times as
 * ISO 8601 with milliseconds, so that exporting the same data twice, from either dialect, gives
 * the same bytes.
 */
import { encode } from './record-codec.js';
import { type DataRecord, KINDS } from './record-kinds.js';

/** One line of the format, without the trailing newline. */
export function formatRecord(r: DataRecord): string {
  return JSON.stringify(encode(KINDS[r.kind].schema, r));
}
