/**
 * The content service: every change to projects, members, issues, merge requests, milestones,
 * notes and pushes. A write runs in one transaction with the events it makes (and whatever the
 * event hooks add, such as webhook deliveries); after commit its events are announced. REST,
 * GraphQL, the git push endpoint and the member expiry job all write through here.
 */
import { createHash } from 'node:crypto';
import { UnprocessableError, ValidationError } from '../../domain/errors.js';
import { utcDay } from '../../domain/content-rules.js';
import { secretsEqual } from '../../domain/secrets.js';
import type { Store } from '../../store/store.js';
import type { EventHooks } from '../activity/event-hooks.js';
import type { Clock } from '../clock.js';
import { isDeadlock, isUniqueViolation } from '../../store/constraint-errors.js';
import { type AccessSubject, type Actor, RaceLost } from './context.js';
import { ContentOps } from './ops.js';
import { EventRecorder } from './recorder.js';

export type { Actor } from './context.js';

/** A face's answer to a write, kept verbatim for retries with the same `Idempotency-Key`. */
export interface Answer {
  status: number;
  body: unknown;
}

/** A write sent with an `Idempotency-Key`: the key, and what identifies the request itself. */
export interface IdempotentRequest {
  key: string;
  /** `METHOD path`: the same key on another request is refused. */
  request: string;
  /** The request body as received: a retry must send the same. */
  body: string;
}

/** How long an answer is kept for retries (Stripe and the IETF draft: 24 hours). */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;
const MAX_KEY_LENGTH = 255;

/**
 * A stored answer is `{ [ENVELOPE]: 1, body, subjects }`: the body sent, and what the write read
 * access to (checked again before a replay). Answers stored before subjects were kept are the bare
 * body; their write's project is then not known, and they replay as before.
 */
const ENVELOPE = 'pulsegate_answer';

function storedAnswer(response: string): { body: unknown; subjects: AccessSubject[] } {
  const parsed = JSON.parse(response) as unknown;
  if (parsed !== null && typeof parsed === 'object' && ENVELOPE in parsed) {
    const { body, subjects } = parsed as unknown as { body: unknown; subjects: AccessSubject[] };
    return { body, subjects };
  }
  return { body: parsed, subjects: [] };
}

/** Thrown inside a transaction to roll it back when another request stored the key first. */
class KeyTaken extends Error {}

export class ContentService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly hooks: EventHooks,
    private readonly report: (error: unknown) => void,
  ) {}

  /** Reads (lookups and lists) for an actor, or anonymously. */
  reading(actor: Actor | null): ContentOps {
    return new ContentOps({ store: this.store, now: this.clock.now(), actor, recorder: null });
  }

  /** Runs `work` in one transaction; its events are announced after commit. */
  write<T>(actor: Actor, work: (ops: ContentOps) => Promise<T>): Promise<T> {
    return this.transaction(actor, work);
  }

  /**
   * Ends memberships past their expiry day, each with its "expired" event in its own
   * transaction. Safe to run in every process at once: each membership is ended by one of them.
   * Returns how many this call ended.
   */
  async expireMemberships(batch = 100): Promise<number> {
    const rows = await this.store.members.expiring(utcDay(this.clock.now()), batch);
    let ended = 0;
    for (const row of rows) {
      if (await this.transaction(null, (ops) => ops.members.expireOne(row))) ended += 1;
    }
    return ended;
  }

  /**
   * A write that lost a race runs once more, from the start: one that broke a uniqueness rule
   * (an open merge request per branch pair, a milestone title) after passing its check, or whose
   * conditional change found the row changed (`RaceLost`). The winner has committed by then, so
   * the write's own checks answer as they would have after it: 409, 400, 405, or no change. A
   * deadlock between row locks taken in different orders (an issue's then its milestone's, a
   * milestone's then its issues') is PostgreSQL aborting one of two such writes: it runs again.
   */
  private async transaction<T>(
    actor: Actor | null,
    work: (ops: ContentOps) => Promise<T>,
    subjects?: AccessSubject[],
  ): Promise<T> {
    try {
      return await this.attempt(actor, work, subjects);
    } catch (error) {
      if (!(error instanceof RaceLost) && !isUniqueViolation(error) && !isDeadlock(error)) {
        throw error;
      }
      // What the lost attempt read is not what this one reads.
      if (subjects) subjects.length = 0;
      return this.attempt(actor, work, subjects);
    }
  }

  private async attempt<T>(
    actor: Actor | null,
    work: (ops: ContentOps) => Promise<T>,
    subjects: AccessSubject[] | undefined,
  ): Promise<T> {
    let recorder: EventRecorder | undefined;
    const result = await this.store.transaction(async (tx) => {
      const now = this.clock.now();
      recorder = new EventRecorder(tx, this.hooks, now);
      return work(
        new ContentOps({ store: tx, now, actor, recorder, ...(subjects && { subjects }) }),
      );
    });
    this.hooks.announce(recorder!.written, this.report);
    return result;
  }

  /**
   * A write that may be retried: with a key, the first answer is stored in the write's own
   * transaction, and a retry within 24 hours gets it back without writing again (`replayed`).
   * Failed writes (errors) store nothing, so they may be retried for real.
   */
  async writeOnce(
    actor: Actor,
    idempotent: IdempotentRequest | null,
    work: (ops: ContentOps) => Promise<Answer>,
  ): Promise<Answer & { replayed: boolean }> {
    if (!idempotent) return { ...(await this.write(actor, work)), replayed: false };
    const { key } = idempotent;
    if (key.length === 0 || key.length > MAX_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(key)) {
      throw new ValidationError([
        `Idempotency-Key must be 1 to ${MAX_KEY_LENGTH} visible ASCII characters`,
      ]);
    }
    const digest = createHash('sha256').update(idempotent.body).digest('hex');
    const userId = actor.user.id;
    const replay = async () => {
      const since = this.clock.now() - IDEMPOTENCY_RETENTION_MS;
      const found = await this.store.idempotency.find(userId, key, since);
      if (!found) return null;
      if (found.request !== idempotent.request || !secretsEqual(found.body_digest, digest)) {
        // The IETF draft's 422: a key reused for a different request is a client bug.
        throw new UnprocessableError('Idempotency-Key was already used for a different request');
      }
      const stored = storedAnswer(found.response);
      // Only to someone who may still read what it shows; else what a fresh request would meet.
      await this.reading(actor).recheck(stored.subjects);
      return { status: found.status, body: stored.body, replayed: true };
    };
    const earlier = await replay();
    if (earlier) return earlier;
    const subjects: AccessSubject[] = [];
    try {
      const answer = await this.transaction(
        actor,
        async (ops) => {
          const result = await work(ops);
          const now = this.clock.now();
          const saved = await ops.context.store.idempotency.save(
            {
              user_id: userId,
              idempotency_key: key,
              request: idempotent.request,
              body_digest: digest,
              status: result.status,
              response: JSON.stringify({ [ENVELOPE]: 1, body: result.body, subjects }),
              created_at: now,
            },
            now - IDEMPOTENCY_RETENTION_MS,
          );
          if (!saved) throw new KeyTaken();
          return result;
        },
        subjects,
      );
      return { ...answer, replayed: false };
    } catch (error) {
      if (!(error instanceof KeyTaken)) throw error;
      const first = await replay();
      if (!first) throw error;
      return first;
    }
  }

  /** Forgets answers older than the retention window (run periodically). */
  pruneIdempotencyKeys(): Promise<number> {
    return this.store.idempotency.prune(this.clock.now() - IDEMPOTENCY_RETENTION_MS);
  }

  /** PostgreSQL: creates the event partitions the next ids need; the names of those created. */
  ensureEventPartitions(): Promise<string[]> {
    return this.store.events.ensurePartitions();
  }
}
