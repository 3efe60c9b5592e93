/** Database rows → records of the import format, in dependency order, a page at a time. */
import type { IdTable } from '../store/bulk.js';
import type { TransferStore } from '../store/transfer.js';
import { type DataRecord, KINDS, RECORD_KINDS } from './record-kinds.js';
import { recordFromRow } from './record-rows.js';
import { pushFromRow } from './push-rows.js';

export async function* exportRecords(source: TransferStore): AsyncGenerator<DataRecord[]> {
  for (const kind of RECORD_KINDS) {
    if (kind === 'member') {
      for await (const rows of source.memberRows()) yield rows.map((r) => recordFromRow(kind, r));
    } else if (kind === 'approval') {
      for await (const rows of source.approvalRows()) yield rows.map((r) => recordFromRow(kind, r));
    } else if (kind === 'star') {
      for await (const rows of source.starRows()) yield rows.map((r) => recordFromRow(kind, r));
    } else if (kind === 'follow') {
      for await (const rows of source.followRows()) yield rows.map((r) => recordFromRow(kind, r));
    } else if (kind === 'event') {
      for await (const { events, pushes } of source.eventPages()) {
        yield events.map((e) => {
          const push = pushes.get(e.id);
          return { ...recordFromRow(kind, e), push: push ? pushFromRow(push) : null };
        });
      }
    } else {
      const table = KINDS[kind].table as IdTable;
      for await (const rows of source.rowsById(table)) yield rows.map((r) => recordFromRow(kind, r));
    }
  }
}
