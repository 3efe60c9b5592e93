/**
 * Export: every record, one per line, in dependency order, read with keyset pages so memory does
 * not grow with the number of events. Hashes and digests only, never plaintext.
 */
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { Store } from '../store/store.js';
import { TransferStore } from '../store/transfer.js';
import { exportRecords } from './export-records.js';
import { formatRecord } from './record-format.js';
import { type TransferOptions, type TransferSummary, emptyCounts } from './transfer.js';

export class ExportService {
  private readonly transfer: TransferStore;

  constructor(store: Store) {
    this.transfer = new TransferStore(store);
  }

  /** Writes every record to `out`; stops (rejecting) once `options.signal` aborts. */
  async exportTo(
    out: Writable,
    options: TransferOptions & { signal?: AbortSignal } = {},
  ): Promise<TransferSummary> {
    const { signal } = options;
    const started = performance.now();
    const totals = await this.transfer.tableCounts();
    const totalRecords = Object.entries(totals)
      .filter(([table]) => table !== 'push_event_payloads')
      .reduce((sum, [, n]) => sum + n, 0);
    const counts = emptyCounts();
    let records = 0;
    for await (const page of exportRecords(this.transfer)) {
      signal?.throwIfAborted();
      const text = page.map((r) => formatRecord(r) + '\n').join('');
      for (const r of page) counts[r.kind]++;
      records += page.length;
      if (!out.write(text)) await once(out, 'drain', signal ? { signal } : {});
      options.onProgress?.({ records, totalRecords });
    }
    return { counts, records, seconds: (performance.now() - started) / 1000 };
  }
}
