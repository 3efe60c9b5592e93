/** The kinds of activity a project hook subscribes to, and GitLab's `X-Gitlab-Event` for each. */

export const HOOK_TRIGGERS = [
  'push_events',
  'tag_push_events',
  'issues_events',
  'confidential_issues_events',
  'merge_requests_events',
  'note_events',
  'confidential_note_events',
  'member_events',
] as const;
export type HookTrigger = (typeof HOOK_TRIGGERS)[number];

export const EVENT_HEADER: Record<HookTrigger, string> = {
  push_events: 'Push Hook',
  tag_push_events: 'Tag Push Hook',
  issues_events: 'Issue Hook',
  confidential_issues_events: 'Confidential Issue Hook',
  merge_requests_events: 'Merge Request Hook',
  note_events: 'Note Hook',
  confidential_note_events: 'Confidential Note Hook',
  member_events: 'Member Hook',
};

export function isHookTrigger(value: unknown): value is HookTrigger {
  return typeof value === 'string' && (HOOK_TRIGGERS as readonly string[]).includes(value);
}
