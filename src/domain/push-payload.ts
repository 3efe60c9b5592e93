/**
 * How a push is stored (GitLab's PushEventPayloadService): short ref, derived action, the commit
 * title of the newest commit, and at most the 20 newest commits. Import, seed and demo data all
 * go through here, so `push_data` and `data` agree whichever way an event arrived.
 */
import { BLANK_SHA, type PushAction, type RefType } from './vocabulary.js';

/** At most this many commits are kept per push (the newest ones), as GitLab's push data keeps. */
export const MAX_PUSH_COMMITS = 20;
/** Rails `truncate(70)`: 67 characters and the `...` marker. */
export const COMMIT_TITLE_LENGTH = 70;
const OMISSION = '...';

export interface PushCommit {
  id: string;
  message: string;
  /** ISO 8601 with offset, e.g. `2026-01-02T10:00:00+00:00`. */
  timestamp: string;
  url: string;
  author: { name: string; email: string };
}

/** A push as a file or a generator describes it (full or short ref, before/after SHAs). */
export interface PushInput {
  action?: PushAction | undefined;
  refType?: RefType | undefined;
  ref: string;
  /** Old revision; null or the blank SHA when the ref was created. */
  before: string | null;
  /** New revision; null or the blank SHA when the ref was removed. */
  after: string | null;
  commitCount: number;
  commits: PushCommit[];
}

/** A push as stored (one row of push_event_payloads, commits not yet serialised). */
export interface StoredPush {
  action: PushAction;
  refType: RefType;
  ref: string;
  commitFrom: string | null;
  commitTo: string | null;
  commitCount: number;
  commitTitle: string | null;
  commits: PushCommit[];
}

const HEADS = 'refs/heads/';
const TAGS = 'refs/tags/';

/** `refs/tags/v1` → tag `v1`; `refs/heads/main` or `main` → branch `main`. */
export function splitRef(ref: string): { refType: RefType | null; short: string } {
  if (ref.startsWith(HEADS)) return { refType: 'branch', short: ref.slice(HEADS.length) };
  if (ref.startsWith(TAGS)) return { refType: 'tag', short: ref.slice(TAGS.length) };
  return { refType: null, short: ref };
}

export function fullRef(refType: RefType, short: string): string {
  return `${refType === 'tag' ? TAGS : HEADS}${short}`;
}

/** Ruby's String#strip: ASCII whitespace and NUL only. */
function rubyStrip(value: string): string {
  return value.replace(/^[\t\n\v\f\r \0]+|[\t\n\v\f\r \0]+$/g, '');
}

/**
 * First line of a commit message, stripped, truncated to 70 characters including the `...`
 * marker; null when there is no first line (GitLab: `message.lines.first&.strip&.truncate(70)`).
 */
export function commitTitle(message: string | undefined): string | null {
  if (message === undefined || message === '') return null;
  const newline = message.indexOf('\n');
  const first = rubyStrip(newline === -1 ? message : message.slice(0, newline + 1));
  const chars = Array.from(first);
  if (chars.length <= COMMIT_TITLE_LENGTH) return first;
  return chars.slice(0, COMMIT_TITLE_LENGTH - OMISSION.length).join('') + OMISSION;
}

function blankToNull(sha: string | null): string | null {
  return sha === null || sha === BLANK_SHA ? null : sha;
}

export function normalizePush(input: PushInput): StoredPush {
  const before = blankToNull(input.before);
  const after = blankToNull(input.after);
  const action: PushAction =
    input.action ?? (before === null ? 'created' : after === null ? 'removed' : 'pushed');
  const { refType, short } = splitRef(input.ref);
  const commits = input.commits.slice(-MAX_PUSH_COMMITS);
  return {
    action,
    refType: input.refType ?? refType ?? 'branch',
    ref: short,
    commitFrom: action === 'created' ? null : before,
    commitTo: action === 'removed' ? null : after,
    commitCount: input.commitCount,
    commitTitle: commitTitle(commits[commits.length - 1]?.message),
    commits,
  };
}
