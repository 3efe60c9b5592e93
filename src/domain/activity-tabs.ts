/**
 * The activity pages' filter tabs, as GitLab's EventFilter defines them (app/models/event_filter.rb),
 * and which events count as contributions on a profile's calendar (Event.contributions). Each is a
 * set of event kinds: an action list, optionally narrowed to target types; an event matches a set
 * when it matches any kind in it.
 */
import type { Action, TargetClass } from './vocabulary.js';

export interface EventKind {
  actions: readonly Action[];
  /** Any target type when absent. */
  targetTypes?: readonly TargetClass[];
}

export const ACTIVITY_TABS = ['all', 'push', 'merged', 'issue', 'comments', 'team'] as const;
export type ActivityTab = (typeof ACTIVITY_TABS)[number];

export function isActivityTab(value: unknown): value is ActivityTab {
  return typeof value === 'string' && (ACTIVITY_TABS as readonly string[]).includes(value);
}

/** The tab's label in GitLab's wording. */
export const TAB_LABELS: Record<ActivityTab, string> = {
  all: 'All',
  push: 'Push events',
  merged: 'Merge events',
  issue: 'Issue events',
  comments: 'Comments',
  team: 'Team',
};

/** The kinds a tab lists; null for `all` (no narrowing). */
export function tabKinds(tab: ActivityTab): readonly EventKind[] | null {
  switch (tab) {
    case 'all':
      return null;
    case 'push':
      return [{ actions: ['pushed'] }];
    case 'merged':
      return [{ actions: ['merged'] }];
    case 'issue':
      // GitLab counts updates as issue events too (they read "opened" in the feed).
      return [{ actions: ['created', 'updated', 'closed', 'reopened'], targetTypes: ['Issue'] }];
    case 'comments':
      return [{ actions: ['commented'] }];
    case 'team':
      return [{ actions: ['joined', 'left', 'expired'] }];
  }
}

/**
 * What the contribution calendar counts, GitLab's list (Gitlab::ContributionsCalendar): pushes;
 * issues created or closed; merge requests created, closed, merged or approved; comments on
 * anything. Reopening, updating, joining and leaving are not contributions there.
 */
export const CONTRIBUTIONS: readonly EventKind[] = [
  { actions: ['pushed', 'commented'] },
  { actions: ['created', 'closed'], targetTypes: ['Issue'] },
  { actions: ['created', 'closed', 'merged', 'approved'], targetTypes: ['MergeRequest'] },
];
