/**
 * What a git server reports after a push (our counterpart of GitLab's `POST /internal/post_receive`
 * `changes`): for each updated ref, its old and new revision, the newest commits and how many
 * there were. Parsed strictly, with Grape's messages (`changes[0][before] is invalid`), so a broken
 * or hostile reporter gets a precise 400 and never a half-recorded push.
 */
import { ValidationError } from './errors.js';
import { MAX_PUSH_COMMITS } from './push-payload.js';
import { BLANK_SHA } from './vocabulary.js';

/** Ref updates in one report; a larger push is reported in several requests. */
export const MAX_PUSH_CHANGES = 100;
/** A commit message longer than this is cut by the reporter (only its first line is shown). */
export const MAX_COMMIT_MESSAGE_LENGTH = 10_000;
/** Ref names, author names and e-mails (characters). */
export const MAX_REF_LENGTH = 255;
export const MAX_AUTHOR_FIELD_LENGTH = 255;
/** `commit_count` is a 32-bit integer column. */
export const MAX_TOTAL_COMMITS = 2_147_483_647;

export interface ReportedCommit {
  id: string;
  message: string;
  /** ISO 8601 with an offset, as git's `%cI` prints it. */
  timestamp: string;
  author: { name: string; email: string };
}

/** One ref update: `before`/`after` are 40 hex digits, forty zeros for a created/removed ref. */
export interface PushChange {
  before: string;
  after: string;
  /** Fully qualified: `refs/heads/…` or `refs/tags/…`. */
  ref: string;
  /** The newest commits (at most 20), oldest first. */
  commits: ReportedCommit[];
  totalCommitsCount: number;
}

const SHA = /^[0-9a-f]{40}$/;
const TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:Z|[+-](\d{2}):(\d{2}))$/;
const REF_PREFIX = /^refs\/(?:heads|tags)\//;
// git check-ref-format: no space, ~ ^ : ? * [ \ anywhere (control characters: hasControl).
const REF_FORBIDDEN = /[ ~^:?*[\\]/;

/** ASCII control characters (C0 and DEL), which no ref name and no setting may hold. */
export function hasControl(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/** Characters (code points), as Rails counts a length. */
function charLength(value: string): number {
  if (value.length <= 1) return value.length;
  let n = 0;
  for (const _ of value) n++;
  return n;
}

/** A name git itself would accept under `refs/heads/` or `refs/tags/` (git check-ref-format). */
export function isValidPushRef(ref: string): boolean {
  if (!REF_PREFIX.test(ref) || charLength(ref) > MAX_REF_LENGTH) return false;
  if (REF_FORBIDDEN.test(ref) || hasControl(ref) || ref.includes('..') || ref.includes('@{'))
    return false;
  if (ref.endsWith('/') || ref.endsWith('.')) return false;
  const short = ref.replace(REF_PREFIX, '');
  if (short === '@') return false;
  return short
    .split('/')
    .every((part) => part !== '' && !part.startsWith('.') && !part.endsWith('.lock'));
}

const DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

export function isValidTimestamp(value: string): boolean {
  const m = TIMESTAMP.exec(value);
  if (!m) return false;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as number[];
  const leap = year! % 4 === 0 && (year! % 100 !== 0 || year! % 400 === 0);
  const days = month === 2 && !leap ? 28 : DAYS[month! - 1];
  if (days === undefined || day! < 1 || day! > days) return false;
  if (hour! > 23 || minute! > 59 || second! > 59) return false;
  if (m[7] !== undefined && (Number(m[7]) > 23 || Number(m[8]) > 59)) return false;
  return true;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Grape's LengthValidator wording. */
function lengthMessage(min: number, max: number): string {
  return min > 0
    ? `is expected to have length within ${min} and ${max}`
    : `is expected to have length less than or equal to ${max}`;
}

class Collector {
  readonly messages: string[] = [];

  add(name: string, text: string): void {
    this.messages.push(`${name} ${text}`);
  }

  /** A required string: missing, not a string, or failing `valid` (with its own message). */
  string(
    obj: Json,
    key: string,
    name: string,
    max: number,
    valid: (v: string) => boolean = () => true,
  ): string | undefined {
    const value = obj[key];
    if (value === undefined || value === null) return void this.add(name, 'is missing');
    if (typeof value !== 'string') return void this.add(name, 'is invalid');
    if (charLength(value) > max) return void this.add(name, lengthMessage(0, max));
    if (!valid(value)) return void this.add(name, 'is invalid');
    return value;
  }
}

function parseCommit(c: Collector, value: unknown, name: string): ReportedCommit | undefined {
  if (!isObject(value)) return void c.add(name, 'is invalid');
  const id = c.string(value, 'id', `${name}[id]`, 40, (v) => SHA.test(v));
  const message = c.string(value, 'message', `${name}[message]`, MAX_COMMIT_MESSAGE_LENGTH);
  const timestamp = c.string(value, 'timestamp', `${name}[timestamp]`, 64, isValidTimestamp);
  const author = value.author;
  let name_: string | undefined;
  let email: string | undefined;
  if (author === undefined || author === null) c.add(`${name}[author]`, 'is missing');
  else if (!isObject(author)) c.add(`${name}[author]`, 'is invalid');
  else {
    name_ = c.string(author, 'name', `${name}[author][name]`, MAX_AUTHOR_FIELD_LENGTH);
    email = c.string(author, 'email', `${name}[author][email]`, MAX_AUTHOR_FIELD_LENGTH);
  }
  if (id === undefined || message === undefined || timestamp === undefined) return undefined;
  if (name_ === undefined || email === undefined) return undefined;
  return { id, message, timestamp, author: { name: name_, email } };
}

function parseChange(c: Collector, value: unknown, name: string): PushChange | undefined {
  if (!isObject(value)) return void c.add(name, 'is invalid');
  const isSha = (v: string) => SHA.test(v);
  const before = c.string(value, 'before', `${name}[before]`, 40, isSha);
  const after = c.string(value, 'after', `${name}[after]`, 40, isSha);
  const ref = c.string(value, 'ref', `${name}[ref]`, MAX_REF_LENGTH, isValidPushRef);

  const rawTotal = value.total_commits_count;
  let total: number | undefined;
  if (rawTotal === undefined || rawTotal === null)
    c.add(`${name}[total_commits_count]`, 'is missing');
  else if (
    typeof rawTotal !== 'number' ||
    !Number.isInteger(rawTotal) ||
    rawTotal < 0 ||
    rawTotal > MAX_TOTAL_COMMITS
  ) {
    c.add(`${name}[total_commits_count]`, 'is invalid');
  } else total = rawTotal;

  const rawCommits = value.commits;
  let commits: ReportedCommit[] | undefined;
  if (rawCommits === undefined || rawCommits === null) c.add(`${name}[commits]`, 'is missing');
  else if (!Array.isArray(rawCommits)) c.add(`${name}[commits]`, 'is invalid');
  else if (rawCommits.length > MAX_PUSH_COMMITS) {
    c.add(`${name}[commits]`, lengthMessage(0, MAX_PUSH_COMMITS));
  } else {
    const parsed = rawCommits.map((item, i) => parseCommit(c, item, `${name}[commits][${i}]`));
    if (parsed.every((x) => x !== undefined)) commits = parsed as ReportedCommit[];
  }

  if (before === undefined || after === undefined || ref === undefined) return undefined;
  if (total === undefined || commits === undefined) return undefined;
  // The rules git itself guarantees: a ref is created, updated or removed, never nothing.
  if (before === BLANK_SHA && after === BLANK_SHA) {
    return void c.add(`${name}[after]`, 'cannot be blank when before is blank');
  }
  if (after === BLANK_SHA && (total !== 0 || commits.length !== 0)) {
    return void c.add(`${name}[commits]`, 'must be empty when the ref is removed');
  }
  if (commits.length !== Math.min(total, MAX_PUSH_COMMITS)) {
    return void c.add(
      `${name}[commits]`,
      `must hold the newest ${MAX_PUSH_COMMITS} commits, or all of them when total_commits_count is smaller`,
    );
  }
  return { before, after, ref, commits, totalCommitsCount: total };
}

/** The body of a push report, or a ValidationError listing every problem in order. */
export function parsePushChanges(body: unknown): PushChange[] {
  const c = new Collector();
  const raw = isObject(body) ? body.changes : undefined;
  if (raw === undefined || raw === null) throw new ValidationError(['changes is missing']);
  if (!Array.isArray(raw)) throw new ValidationError(['changes is invalid']);
  if (raw.length < 1 || raw.length > MAX_PUSH_CHANGES) {
    throw new ValidationError([`changes ${lengthMessage(1, MAX_PUSH_CHANGES)}`]);
  }
  const changes: PushChange[] = [];
  const seen = new Set<string>();
  raw.forEach((item, i) => {
    const change = parseChange(c, item, `changes[${i}]`);
    if (!change) return;
    // git reports each ref once per push; a repeated ref would record one push twice.
    if (seen.has(change.ref)) return c.add(`changes[${i}][ref]`, 'is duplicated');
    seen.add(change.ref);
    changes.push(change);
  });
  if (c.messages.length > 0) throw new ValidationError(c.messages);
  return changes;
}
