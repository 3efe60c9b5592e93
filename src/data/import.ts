/**
 * Import of the newline-delimited JSON format. An import is one transaction on either dialect:
 * every line is parsed and its references checked before it is buffered for writing, and the
 * first bad line (plus up to MAX_PROBLEMS in total) aborts the whole import, leaving the database
 * exactly as it was.
 */
import { createReadStream, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { normalizePush } from '../domain/push-payload.js';
import { hashPassword } from '../domain/secrets.js';
import { actionCode } from '../domain/vocabulary.js';
import type { BulkWriter } from '../store/bulk.js';
import { COLUMNS } from '../store/bulk.js';
import type { Store } from '../store/store.js';
import { TransferStore } from '../store/transfer.js';
import type { Clock } from '../services/clock.js';
import { ReferenceLedger } from './record-references.js';
import { type DataRecord, RecordError, parseRecordLine } from './records.js';
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

/** Lines are handed over in batches: one await per thousand, not one per line. */
const BATCH = 1000;

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
      let line = 0;
      let batch: Entry[] = [];
      for await (const text of lines) {
        batch.push({ line: ++line, text });
        if (batch.length === BATCH) {
          yield batch;
          batch = [];
        }
      }
      if (batch.length) yield batch;
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
    // Handed over in batches: one await per thousand records, not one per record.
    async function* entries(): AsyncGenerator<Entry[]> {
      let line = 0;
      let batch: Entry[] = [];
      for await (const record of records) {
        batch.push({ line: ++line, record });
        if (batch.length === BATCH) {
          yield batch;
          batch = [];
        }
      }
      if (batch.length) yield batch;
    }
    return this.run(entries(), options);
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
      ledger.load(await tx.existingKeys());
      for await (const ids of tx.eventIdPages()) ledger.loadEventIds(ids);
      const writer = tx.writer(COLUMNS);
      const counts = emptyCounts();
      const problems: Problem[] = [];
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
            problems.push({ line: entry.line, message: error.message });
            if (problems.length >= MAX_PROBLEMS) break;
            continue;
          }
          // After the first problem nothing more is written; the rest is only checked.
          if (problems.length > 0) continue;
          const passwordHash =
            record.kind === 'user' && record.password !== null
              ? await hashPassword(record.password)
              : null;
          this.write(writer, record, issueId, now, passwordHash);
          counts[record.kind]++;
          records++;
          if (writer.full) {
            await writer.flush();
            options.onProgress?.({ records });
          }
        }
        if (problems.length >= MAX_PROBLEMS) break;
      }
      if (problems.length > 0) throw new ImportError(problems);
      await writer.flush();
      await tx.resetSequences();
      options.onProgress?.({ records });
      return { counts, records, seconds: (performance.now() - started) / 1000 };
    });
  }

  /** Buffers the rows of one record (a user's plain password arrives already hashed). */
  private write(
    w: BulkWriter,
    r: DataRecord,
    issueId: number | null,
    now: number,
    passwordHash: string | null,
  ): void {
    switch (r.kind) {
      case 'user':
        return w.add('users', {
          id: r.id,
          username: r.username,
          name: r.name,
          email: r.email,
          state: r.state,
          password_hash: passwordHash ?? r.password_hash,
          admin: r.admin ? 1 : 0,
          two_factor_enabled: r.two_factor_enabled ? 1 : 0,
          private_profile: r.private_profile ? 1 : 0,
          avatar_url: r.avatar_url,
          created_at: r.created_at ?? now,
        });
      case 'project':
        return w.add('projects', {
          id: r.id,
          namespace: r.namespace,
          path: r.path,
          full_path: `${r.namespace}/${r.path}`,
          name: r.name,
          description: r.description,
          visibility: r.visibility,
          creator_id: r.creator_id,
          created_at: r.created_at ?? now,
        });
      case 'member':
        return w.add('project_members', {
          project_id: r.project_id,
          user_id: r.user_id,
          access_level: r.access_level,
        });
      case 'milestone':
        return w.add('milestones', { ...withoutKind(r), created_at: r.created_at ?? now });
      case 'issue':
        return w.add('issues', {
          ...withoutKind(r),
          confidential: r.confidential ? 1 : 0,
          created_at: r.created_at ?? now,
        });
      case 'merge_request':
        return w.add('merge_requests', { ...withoutKind(r), created_at: r.created_at ?? now });
      case 'snippet':
        return w.add('snippets', { ...withoutKind(r), created_at: r.created_at ?? now });
      case 'note':
        return w.add('notes', {
          ...withoutKind(r),
          system: r.system ? 1 : 0,
          updated_at: r.updated_at ?? r.created_at,
        });
      case 'event': {
        w.add('events', {
          id: r.id,
          project_id: r.project_id,
          author_id: r.author_id,
          action: actionCode(r.action),
          target_type: r.target_type,
          target_id: r.target_id,
          issue_id: issueId,
          created_at: r.created_at,
        });
        if (!r.push) return;
        const p = normalizePush(r.push);
        return w.add('push_event_payloads', {
          event_id: r.id,
          action: p.action,
          ref_type: p.refType,
          ref: p.ref,
          commit_from: p.commitFrom,
          commit_to: p.commitTo,
          commit_count: p.commitCount,
          commit_title: p.commitTitle,
          commits: JSON.stringify(p.commits),
        });
      }
      case 'personal_access_token':
        return w.add('personal_access_tokens', {
          id: r.id,
          user_id: r.user_id,
          name: r.name,
          token_digest: r.token_digest,
          scopes: r.scopes.join(' '),
          expires_at: r.expires_at,
          revoked: r.revoked ? 1 : 0,
          last_used_at: r.last_used_at,
          created_at: r.created_at ?? now,
        });
      case 'oauth_application':
        return w.add('oauth_applications', {
          id: r.id,
          uid: r.uid,
          secret_digest: r.secret_digest,
          name: r.name,
          // Stored one URI per line, as the registration page writes them.
          redirect_uris: r.redirect_uris.join('\n'),
          scopes: r.scopes.join(' '),
          confidential: r.confidential ? 1 : 0,
          owner_id: r.owner_id,
          created_at: r.created_at ?? now,
        });
    }
  }
}

function withoutKind<T extends { kind: string }>(record: T): Omit<T, 'kind'> {
  const { kind: _kind, ...rest } = record;
  return rest;
}
