/** What import, export and seeding report while they run and when they are done. */
import { RECORD_KINDS, type RecordKind } from './record-kinds.js';

export type KindCounts = Record<RecordKind, number>;

export interface TransferProgress {
  records: number;
  /** Bytes of the input read so far and its size, when importing a file. */
  bytes?: number;
  totalBytes?: number;
  /** Records expected in all (export knows it up front). */
  totalRecords?: number;
}

export interface TransferSummary {
  counts: KindCounts;
  records: number;
  seconds: number;
}

export interface TransferOptions {
  onProgress?: (progress: TransferProgress) => void;
}

export function emptyCounts(): KindCounts {
  return Object.fromEntries(RECORD_KINDS.map((k) => [k, 0])) as KindCounts;
}
