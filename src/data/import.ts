/**
 * Import of the newline-delimited JSON format. An import is one transaction on either dialect:
 * every line is parsed and its references checked before it is buffered for writing, and the
 * first bad line (plus up to MAX_PROBLEMS in total) aborts the whole import, leaving the database
 * exactly as it was.
 */
import { createReadStream, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { hashPassword } from '../domain/secrets.js';
import type { Clock } from '../services/clock.js';
import type { BulkWriter } from '../store/bulk.js';
import type { Store } from '../store/store.js';
import { TransferStore } from '../store/transfer.js';
import { pushValues } from './push-rows.js';
import { DuplicateRecordError, RecordError } from './record-errors.js';
import type { RowContext } from './record-fields.js';
import { type DataRecord, KINDS } from './record-kinds.js';
import { parseRecordLine } from './record-parser.js';
import { ReferenceLedger } from './record-references.js';
import { BULK_COLUMNS, rowValues } from './record-rows.js';
import {
  type TransferOptions,
  type TransferSummary,
  emptyCounts,
} from './transfer.js';

/** Collecting more problems than this helps nobody: fix these and run again. */
export const MAX_PROBLEMS = 20;

export interface Problem {
  line: number;
  message: string;
}

/**
 * Into a database that already holds data, a file of the same records clashes on every line:
 * the clashes are said once, on the first one's line, instead of twenty times.
 */
function foldClashes(problems: Problem[], clashes: Set<Problem>): Problem[] {
  if (clashes.size < 2) return problems;
  const first = problems.find((p) => clashes.has(p))!;
  const more = `${problems.length >= MAX_PROBLEMS ? 'at least ' : ''}${clashes.size - 1}`;
  const folded = {
    line: first.line,
    message:
      `${first.message}, and so do the records on ${more} more lines:` +
      ' the database is not empty (import into an empty database)',
  };
  return problems.flatMap((p) => (p === first ? [folded] : clashes.has(p) ? [] : [p]));
}

export class ImportError extends Error {
  constructor(readonly problems: Problem[]) {
    super(
      problems
        .map((p) => `line ${p.line}: ${p.message}`)
        .concat(problems.length >= MAX_PROBLEMS ? ['(stopped after the first 20 problems)'] : [])
        .join('\n'),
    );
  }
}

/** A line of input: its number and either raw text or an already built record. */
export type Entry = { line: number; text: string } | { line: number; record: DataRecord };

/** Entries are handed over in batches: one await per thousand, not one per line or record. */
const BATCH = 1000;

/** Lines or records as entries numbered from 1, in batches. */
async function* numberedBatches<T>(
  items: Iterable<T> | AsyncIterable<T>,
  entry: (item: T, line: number) => Entry,
): AsyncGenerator<Entry[]> {
  let line = 0;
  let batch: Entry[] = [];
  for await (const item of items) {
    batch.push(entry(item, ++line));
    if (batch.length === BATCH) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length) yield batch;
}

export class ImportService {
  private readonly transfer: TransferStore;

  constructor(
    store: Store,
    private readonly clock: Clock,
  ) {
    this.transfer = new TransferStore(store);
  }

  /** Imports a file of the format (`-` reads standard input). */
  async importFile(path: string, options: TransferOptions = {}): Promise<TransferSummary> {
    const input = path === '-' ? process.stdin : createReadStream(path);
    const totalBytes = path === '-' ? undefined : statSync(path).size;
    let bytes = 0;
    // Read lazily: the reader is created (and input flows) only once the transaction is open and
    // asks for the first batch.
    async function* entries(): AsyncGenerator<Entry[]> {
      const lines = createInterface({ input, crlfDelay: Infinity });
      input.on('data', (chunk: Buffer | string) => (bytes += chunk.length));
      yield* numberedBatches(lines, (text, line) => ({ line, text }));
    }
    return this.run(entries(), {
      onProgress: options.onProgress
        ? (p) => options.onProgress!({ ...p, bytes, totalBytes })
        : undefined,
    });
  }

  /** Imports text already in memory (tests, small files). */
  importText(text: string, options: TransferOptions = {}): Promise<TransferSummary> {
    const lines = text.split('\n').map((t, i) => ({ line: i + 1, text: t }));
    return this.run([lines], options);
  }

  /** Imports generated records (seed, demo data) through the same checks as a file. */
  importRecords(
    records: Iterable<DataRecord> | AsyncIterable<DataRecord>,
    options: TransferOptions = {},
  ): Promise<TransferSummary> {
    return this.run(
      numberedBatches(records, (record, line) => ({ line, record })),
      options,
    );
  }

  /** The load in one transaction, then the database tidied up for reading (see Store.settle). */
  private async run(
    batches: Iterable<Entry[]> | AsyncIterable<Entry[]>,
    options: TransferOptions,
  ): Promise<TransferSummary> {
    const summary = await this.load(batches, options);
    await this.transfer.settle();
    return summary;
  }

  private load(
    batches: Iterable<Entry[]> | AsyncIterable<Entry[]>,
    options: TransferOptions,
  ): Promise<TransferSummary> {
    const started = performance.now();
    return this.transfer.importTransaction(async (tx) => {
      const ledger = new ReferenceLedger();
      const existing = await tx.existingKeys();
      ledger.load(existing);
      let holdsData = Object.values(existing).some((rows) => rows.length > 0);
      for await (const ids of tx.eventIdPages()) {
        ledger.loadEventIds(ids);
        holdsData ||= ids.length > 0;
      }
      const writer = tx.writer(BULK_COLUMNS);
      const counts = emptyCounts();
      const problems: Problem[] = [];
      const clashes = new Set<Problem>();
      let records = 0;
      const now = this.clock.now();
      for await (const batch of batches) {
        for (const entry of batch) {
          let record: DataRecord;
          let issueId: number | null;
          try {
            if ('record' in entry) record = entry.record;
            else if (entry.text.trim() === '') continue;
            else record = parseRecordLine(entry.text);
            issueId = ledger.admit(record);
          } catch (error) {
            if (!(error instanceof RecordError)) throw error;
            const problem = { line: entry.line, message: error.message };
            problems.push(problem);
            if (error instanceof DuplicateRecordError) clashes.add(problem);
            if (problems.length >= MAX_PROBLEMS) break;
            continue;
          }
          // After the first problem nothing more is written; the rest is only checked.
          if (problems.length > 0) continue;
          const passwordHash =
            record.kind === 'user' && record.password != null
              ? await hashPassword(record.password)
              : null;
          this.write(writer, record, { now, issueId, passwordHash });
          counts[record.kind]++;
          records++;
          if (writer.full) {
            await writer.flush();
            options.onProgress?.({ records });
          }
        }
        if (problems.length >= MAX_PROBLEMS) break;
      }
      if (problems.length > 0) {
        throw new ImportError(holdsData ? foldClashes(problems, clashes) : problems);
      }
      await writer.flush();
      await tx.resetSequences();
      options.onProgress?.({ records });
      return { counts, records, seconds: (performance.now() - started) / 1000 };
    });
  }

  /** Buffers the rows of one record (a user's plain password arrives already hashed). */
  private write(w: BulkWriter, r: DataRecord, context: RowContext): void {
    w.add(KINDS[r.kind].table, rowValues(r, context));
    if (r.kind === 'event' && r.push) w.add('push_event_payloads', pushValues(r.id, r.push));
  }
}
