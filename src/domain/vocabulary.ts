/**
 * The activity vocabulary, written once: filter keys as clients send them, stored codes, the class
 * names GitLab emits, and the human `action_name` derivation. REST and GraphQL both read it.
 */

/** Action keys in GitLab's order; the stored code is GitLab's enum value (index + 1). */
export const ACTIONS = [
  'created',
  'updated',
  'closed',
  'reopened',
  'pushed',
  'commented',
  'merged',
  'joined',
  'left',
  'destroyed',
  'expired',
  'approved',
] as const;
export type Action = (typeof ACTIONS)[number];

export function actionCode(action: Action): number {
  return ACTIONS.indexOf(action) + 1;
}

export function actionFromCode(code: number): Action {
  const action = ACTIONS[code - 1];
  if (!action) throw new Error(`unknown action code ${code}`);
  return action;
}

export function isAction(value: unknown): value is Action {
  return typeof value === 'string' && (ACTIONS as readonly string[]).includes(value);
}

/** Filter key → the stored (emitted) target class name. */
export const TARGET_TYPES = {
  issue: 'Issue',
  milestone: 'Milestone',
  merge_request: 'MergeRequest',
  note: 'Note',
  project: 'Project',
  snippet: 'Snippet',
  user: 'User',
  // GitLab's filter maps these two keys to class names that differ from the key.
  wiki: 'WikiPage::Meta',
  design: 'DesignManagement::Design',
} as const;
export type TargetTypeKey = keyof typeof TARGET_TYPES;
export type TargetClass = (typeof TARGET_TYPES)[TargetTypeKey];

export const TARGET_CLASSES = Object.values(TARGET_TYPES) as TargetClass[];

export function isTargetTypeKey(value: unknown): value is TargetTypeKey {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(TARGET_TYPES, value);
}

export function isTargetClass(value: unknown): value is TargetClass {
  return typeof value === 'string' && (TARGET_CLASSES as string[]).includes(value);
}

/** Noteable classes a note can hang on. */
export const NOTEABLE_TYPES = ['Issue', 'MergeRequest', 'Snippet', 'Commit'] as const;
export type NoteableType = (typeof NOTEABLE_TYPES)[number];

export const PUSH_ACTIONS = ['pushed', 'created', 'removed'] as const;
export type PushAction = (typeof PUSH_ACTIONS)[number];
export const REF_TYPES = ['branch', 'tag'] as const;
export type RefType = (typeof REF_TYPES)[number];

export const BLANK_SHA = '0'.repeat(40);

/**
 * GitLab's `action_name` (app/models/event.rb): first match wins. Created, reopened and updated
 * issue/MR/milestone events all read "opened"; merged reads "accepted"; design events read
 * added/updated/removed and wiki events created/updated.
 */
export function actionName(
  action: Action,
  targetType: string | null,
  pushAction: PushAction | null,
): string {
  if (action === 'pushed') {
    if (pushAction === 'created') return 'pushed new';
    if (pushAction === 'removed') return 'deleted';
    return 'pushed to';
  }
  if (targetType === TARGET_TYPES.design) {
    if (action === 'created') return 'added';
    if (action === 'updated') return 'updated';
    if (action === 'destroyed') return 'removed';
  }
  switch (action) {
    case 'closed':
      return 'closed';
    case 'merged':
      return 'accepted';
    case 'joined':
      return 'joined';
    case 'left':
      return 'left';
    case 'expired':
      return 'removed due to membership expiration from';
    case 'destroyed':
      return 'destroyed';
    case 'commented':
      return 'commented on';
    default:
      break;
  }
  if (targetType === TARGET_TYPES.wiki && (action === 'created' || action === 'updated'))
    return action;
  if (action === 'created' && targetType === null) return 'created';
  if (action === 'approved') return 'approved';
  return 'opened';
}

/** GitLab access levels. */
export const ACCESS_LEVELS = {
  guest: 10,
  reporter: 20,
  developer: 30,
  maintainer: 40,
  owner: 50,
} as const;
export const ACCESS_LEVEL_VALUES: readonly number[] = Object.values(ACCESS_LEVELS);

export const VISIBILITIES = ['public', 'internal', 'private'] as const;
export type Visibility = (typeof VISIBILITIES)[number];

export const USER_STATES = ['active', 'blocked'] as const;
export type UserState = (typeof USER_STATES)[number];
