/**
 * A push as the format carries it (inside an event) ↔ its row in push_event_payloads. The row is
 * what GitLab stores (short ref, commit title, the 20 newest commits, see domain/push-payload.ts);
 * export turns it back into before/after (blank SHA where GitLab stores null) and a full ref,
 * which the import turns into the very same row again.
 */
import { type PushCommit, type PushInput, fullRef, normalizePush } from '../domain/push-payload.js';
import { BLANK_SHA, type PushAction, type RefType } from '../domain/vocabulary.js';
import type { PushPayloadRow } from '../store/schema.js';

/** The columns of push_event_payloads, in the order pushValues gives them. */
export const PUSH_COLUMNS = [
  'event_id',
  'action',
  'ref_type',
  'ref',
  'commit_from',
  'commit_to',
  'commit_count',
  'commit_title',
  'commits',
] as const satisfies readonly (keyof PushPayloadRow)[];

export function pushValues(eventId: number, push: PushInput): unknown[] {
  const p = normalizePush(push);
  return [
    eventId,
    p.action,
    p.refType,
    p.ref,
    p.commitFrom,
    p.commitTo,
    p.commitCount,
    p.commitTitle,
    JSON.stringify(p.commits),
  ];
}

export function pushFromRow(row: PushPayloadRow): PushInput {
  const refType = row.ref_type as RefType;
  return {
    action: row.action as PushAction,
    refType,
    ref: fullRef(refType, row.ref),
    before: row.commit_from ?? BLANK_SHA,
    after: row.commit_to ?? BLANK_SHA,
    commitCount: row.commit_count,
    commits: JSON.parse(row.commits) as PushCommit[],
  };
}
