/**
 * The dashboard's activity tabs, as GitLab has them: "Your projects" (REST `scope=all`), "Starred
 * projects" (`scope=starred`) and "Followed users" (`scope=followed`), each with its Atom feed and
 * its live subscription. GitLab tells them apart by `?filter=starred`; here `filter` already names
 * the event tab (push, merged, …), so each has a path of its own.
 */
import { type Html, html } from './html.js';

export interface DashboardScope {
  /** The page's path. */
  path: string;
  label: string;
  /** The activity service's viewer scope. */
  scope: 'all' | 'starred' | 'followed';
  /** `eventCreated`'s arguments (the live script's subscription). */
  subscribe: { scope?: 'STARRED' | 'FOLLOWED' };
  atom: { path: string; title: string };
  lead: string;
  empty: string;
}

export const DASHBOARD_SCOPES: readonly DashboardScope[] = [
  {
    path: '/dashboard/activity',
    label: 'Your projects',
    scope: 'all',
    subscribe: {},
    atom: { path: '/dashboard/projects.atom', title: 'Your projects’ activity' },
    lead: 'Everything that happens in your projects.',
    empty: 'No activity in your projects yet.',
  },
  {
    path: '/dashboard/activity/starred',
    label: 'Starred projects',
    scope: 'starred',
    subscribe: { scope: 'STARRED' },
    atom: { path: '/dashboard/starred.atom', title: 'Your starred projects’ activity' },
    lead: 'Everything that happens in the projects you starred.',
    empty: 'No activity in your starred projects yet. Star a project to see its activity here.',
  },
  {
    path: '/dashboard/activity/followed',
    label: 'Followed users',
    scope: 'followed',
    subscribe: { scope: 'FOLLOWED' },
    atom: { path: '/dashboard/followed.atom', title: 'Activity of the users you follow' },
    lead: 'What the people you follow do, in the projects you can see.',
    empty: 'No activity from the users you follow yet. Follow a user to see their activity here.',
  },
];

/** The three tabs, the current one marked; a day chosen stays chosen across them. */
export function dashboardTabs(current: DashboardScope, date?: string): Html {
  const query = date === undefined ? '' : `?date=${encodeURIComponent(date)}`;
  return html`<nav class="tabs dashboard-scopes" aria-label="Whose activity">
    ${DASHBOARD_SCOPES.map(
      (scope) =>
        html`<a href="${scope.path}${query}" ${scope === current ? html`aria-current="page"` : ''}
          >${scope.label}</a
        >`,
    )}
  </nav>`;
}
