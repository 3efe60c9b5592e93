/**
 * The model validations GitLab's records apply (ActiveRecord `validates`), with GitLab's messages.
 * Each returns the problems per attribute, empty when the value is fine; services raise them as
 * one InvalidRecordError (`{"message":{"title":["can't be blank"]}}`).
 */

export type FieldErrors = Record<string, string[]>;

export const TITLE_MAX = 255;
/** GitLab's description limit (1 MiB of text). */
export const DESCRIPTION_MAX = 1_048_576;
/** GitLab's note limit. */
export const NOTE_MAX = 1_000_000;
const PATH_MAX = 255;

/** Adds `message` under `field`. */
export function addError(errors: FieldErrors, field: string, message: string): void {
  (errors[field] ??= []).push(message);
}

export function hasErrors(errors: FieldErrors): boolean {
  return Object.keys(errors).length > 0;
}

function isBlank(value: string): boolean {
  return value.trim().length === 0;
}

/** `validates :title, presence: true, length: { maximum: 255 }`. */
export function checkTitle(errors: FieldErrors, title: string, field = 'title'): void {
  if (isBlank(title)) addError(errors, field, "can't be blank");
  else if (Array.from(title).length > TITLE_MAX)
    addError(errors, field, `is too long (maximum is ${TITLE_MAX} characters)`);
}

export function checkDescription(errors: FieldErrors, description: string): void {
  if (description.length > DESCRIPTION_MAX)
    addError(errors, 'description', `is too long (maximum is ${DESCRIPTION_MAX} characters)`);
}

export function checkNoteBody(errors: FieldErrors, body: string): void {
  if (isBlank(body)) addError(errors, 'note', "can't be blank");
  else if (body.length > NOTE_MAX)
    addError(errors, 'note', `is too long (maximum is ${NOTE_MAX} characters)`);
}

/** A project hook's `validates :name` and `validates :description` (WebHook). */
export const HOOK_NAME_MAX = 255;
export const HOOK_DESCRIPTION_MAX = 2048;
/**
 * The secret token goes out verbatim as the `X-Gitlab-Token` header: GitLab refuses a newline
 * (`format: { without: /\n/ }`); pulsegate also bounds it as it bounds the URL.
 */
export const HOOK_TOKEN_MAX = 2048;

/** A hook's free-text attributes, as far as they are given. */
export function checkHookFields(
  errors: FieldErrors,
  fields: {
    name?: string | undefined;
    description?: string | undefined;
    token?: string | null | undefined;
  },
): void {
  const { name, description, token } = fields;
  if (name !== undefined && Array.from(name).length > HOOK_NAME_MAX)
    addError(errors, 'name', `is too long (maximum is ${HOOK_NAME_MAX} characters)`);
  if (description !== undefined && Array.from(description).length > HOOK_DESCRIPTION_MAX)
    addError(errors, 'description', `is too long (maximum is ${HOOK_DESCRIPTION_MAX} characters)`);
  if (typeof token === 'string') {
    if (/[\r\n]/.test(token)) addError(errors, 'token', 'is invalid');
    else if (Array.from(token).length > HOOK_TOKEN_MAX)
      addError(errors, 'token', `is too long (maximum is ${HOOK_TOKEN_MAX} characters)`);
  }
}

/**
 * The parameters of a request that hold a NUL character anywhere (in a value or a key, at any
 * depth), named as Grape names them (`changes[0][commits][1][message]`). No text column can
 * store one (PostgreSQL refuses it), so GitLab refuses such a request up front
 * (HandleNullBytes); every write of every face does the same, before any field is read.
 */
export function nullByteParams(params: unknown): string[] {
  const found: string[] = [];
  const walk = (value: unknown, name: string): void => {
    if (typeof value === 'string') {
      if (value.includes('\0')) found.push(name);
    } else if (Array.isArray(value)) {
      value.forEach((item, i) => walk(item, `${name}[${i}]`));
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        const child = name === '' ? key : `${name}[${key}]`;
        if (key.includes('\0')) found.push(child);
        else walk(item, child);
      }
    }
  };
  if (params !== null && typeof params === 'object' && !Array.isArray(params)) walk(params, '');
  else walk(params, 'body');
  return found;
}

/** Project paths: GitLab's `path` format and reserved endings. */
const PATH_FORMAT = /^[a-zA-Z0-9_][a-zA-Z0-9_.-]*$/;
export const PATH_FORMAT_MESSAGE =
  "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'";

export function checkProjectPath(errors: FieldErrors, path: string): void {
  if (isBlank(path)) {
    addError(errors, 'path', "can't be blank");
    return;
  }
  if (path.length > PATH_MAX)
    addError(errors, 'path', `is too long (maximum is ${PATH_MAX} characters)`);
  if (!PATH_FORMAT.test(path) || /\.(git|atom)$/i.test(path) || path.endsWith('.'))
    addError(errors, 'path', PATH_FORMAT_MESSAGE);
}

/** Project names: letters, digits, emoji, '_', '.', '+', '-', space; starting with a letter, digit, emoji or '_'. */
const NAME_FORMAT =
  /^[\p{L}\p{N}\p{Extended_Pictographic}_][\p{L}\p{N}\p{Extended_Pictographic}_.+\- ]*$/u;

export function checkProjectName(errors: FieldErrors, name: string): void {
  if (isBlank(name)) {
    addError(errors, 'name', "can't be blank");
    return;
  }
  if (Array.from(name).length > PATH_MAX)
    addError(errors, 'name', `is too long (maximum is ${PATH_MAX} characters)`);
  if (!NAME_FORMAT.test(name))
    addError(
      errors,
      'name',
      "can contain only letters, digits, emoji, '_', '.', '+', dashes, or spaces. It must start with a letter, digit, emoji, or '_'.",
    );
}

/** GitLab derives a path from a name when only the name is given (`name.parameterize`-like). */
export function pathFromName(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9_.-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .replace(/-{2,}/g, '-');
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A real calendar day `YYYY-MM-DD` (no 2026-02-30), or null. */
export function calendarDay(value: string): string | null {
  const match = DAY.exec(value);
  if (!match) return null;
  const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  return date.toISOString().slice(0, 10) === value ? value : null;
}

/** Today's day in UTC, as membership expiry compares it. */
export function utcDay(ms: number): string {
  // Asked on every listing request (membership expiry is judged by the day), and the answer
  // changes once a day: formatting a date each time was a measurable share of a cached answer.
  const day = Math.floor(ms / DAY_MS);
  if (day !== lastDay.day)
    lastDay = { day, text: new Date(day * DAY_MS).toISOString().slice(0, 10) };
  return lastDay.text;
}

const DAY_MS = 86_400_000;
let lastDay = { day: Number.NaN, text: '' };

/** What a `state_event` does to an issue or merge request. */
export const TRACKED_STATE_EVENTS = ['close', 'reopen'] as const;
export type TrackedStateEvent = (typeof TRACKED_STATE_EVENTS)[number];
export const MILESTONE_STATE_EVENTS = ['close', 'activate'] as const;
export type MilestoneStateEvent = (typeof MILESTONE_STATE_EVENTS)[number];

/**
 * What a `state_event` does to an issue or merge request in `state`: close an open one, reopen a
 * closed one; anything else (closing a closed issue, reopening a merged merge request) changes
 * nothing and writes no event.
 */
export function trackedTransition(
  event: TrackedStateEvent | undefined,
  state: string,
): 'closed' | 'reopened' | null {
  if (event === 'close' && state === 'opened') return 'closed';
  if (event === 'reopen' && state === 'closed') return 'reopened';
  return null;
}
