import { PassThrough } from 'node:stream';
import { ExportService } from '../../src/data/export.js';
import type { Store } from '../../src/store/store.js';

/** The NDJSON export of a store, as `pulsegate export` writes it. */
export async function exportText(store: Store): Promise<string> {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (c: Buffer) => chunks.push(c));
  await new ExportService(store).exportTo(out);
  return Buffer.concat(chunks).toString('utf8');
}
