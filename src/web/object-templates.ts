/**
 * The templates of the pages behind the links: an issue, a merge request, a milestone, a commit,
 * a compare range, a ref's pushes, the lists of issues, merge requests and milestones, and a
 * group. Titles and names are escaped text; descriptions and notes go through markdown.ts.
 */
import { projectDisplayName } from '../domain/event-wording.js';
import type { EventView } from '../services/activity/activity.js';
import type { NoteView, ProjectView, UserView } from '../services/views.js';
import { commitId, eventItem, timeTag } from './event-item.js';
import { type Html, html } from './html.js';
import type { AvatarStyle } from './identicon.js';
import { renderMarkdown } from './markdown.js';

export interface ObjectFrame {
  project: ProjectView;
  now: number;
  avatars: AvatarStyle;
}

export function projectHref(project: { fullPath: string }, rest = ''): string {
  return `/${project.fullPath}${rest}`;
}

export function userLink(user: UserView | null): Html {
  if (!user) return html`<span class="author">A deleted user</span>`;
  return html`<a class="author" href="/${user.username}" title="${user.name}">${user.name}</a>`;
}

/** The project page's way to its issues, merge requests and milestones. */
export function projectLinks(project: { fullPath: string }): Html {
  return html`<nav class="project-links" aria-label="Project">
    <a href="${projectHref(project, '/-/issues')}">Issues</a>
    <a href="${projectHref(project, '/-/merge_requests')}">Merge requests</a>
    <a href="${projectHref(project, '/-/milestones')}">Milestones</a>
  </nav>`;
}

/** The project's name and its three lists, above every page of the project. */
export function projectBar(project: ProjectView, current?: string): Html {
  const links: [string, string][] = [
    ['activity', 'Activity'],
    ['issues', 'Issues'],
    ['merge_requests', 'Merge requests'],
    ['milestones', 'Milestones'],
  ];
  return html`<p class="crumbs">
      <a href="${projectHref(project)}">${projectDisplayName(project.fullPath)}</a>
    </p>
    <nav class="tabs project-tabs" aria-label="Project">
      ${links.map(
        ([key, label]) =>
          html`<a
            href="${key === 'activity' ? projectHref(project) : projectHref(project, `/-/${key}`)}"
            ${key === current ? html`aria-current="page"` : ''}
            >${label}</a
          >`,
      )}
    </nav>`;
}

export function stateBadge(state: string): Html {
  return html`<span class="state state-${state}">${state}</span>`;
}

export function markdownBody(source: string, empty: string): Html {
  return source.trim() === ''
    ? html`<p class="muted">${empty}</p>`
    : html`<div class="markdown">${renderMarkdown(source)}</div>`;
}

export function notesSection(notes: readonly NoteView[], now: number): Html {
  return html`<section class="notes">
    <h2>Comments</h2>
    ${
      notes.length === 0
        ? html`<p class="muted">No comments yet.</p>`
        : html`<ol class="notes">
            ${notes.map(
              (note) =>
                html`<li class="note${note.system ? ' system' : ''}" id="note_${note.id}">
                  <p class="note-head">
                    ${userLink(note.author)} ${note.system ? '' : 'commented'}
                    <a href="#note_${note.id}">${timeTag(note.createdAt, now)}</a>
                  </p>
                  ${markdownBody(note.body, '')}
                </li>`,
            )}
          </ol>`
    }
  </section>`;
}

export function eventsSection(
  title: string,
  events: readonly EventView[],
  frame: ObjectFrame,
  empty: string,
): Html {
  return html`<section class="object-events">
    <h2>${title}</h2>
    ${
      events.length === 0
        ? html`<p class="muted">${empty}</p>`
        : html`<ol class="events">
            ${events.map((event) => eventItem(event, frame.now, frame.avatars))}
          </ol>`
    }
  </section>`;
}

/** "Opened 3 days ago by Alice" and what happened after. */
export function byline(parts: readonly (Html | string | false | null)[]): Html {
  return html`<p class="byline muted">
    ${parts.filter((p) => p).map((p, i) => html`${i > 0 ? ' · ' : ''}${p}`)}
  </p>`;
}

/** One commit as a push payload kept it. */
export interface KeptCommit {
  id: string;
  message: string;
  timestamp: string | null;
  author: { name: string; email: string } | null;
}

export function commitList(project: ProjectView, commits: readonly KeptCommit[]): Html {
  return html`<ul class="commits kept">
    ${commits.map(
      (c) =>
        html`<li>
          ${commitId(project.fullPath, c.id)}
          <span>${c.message.split('\n')[0]}</span>
          ${c.author ? html`<span class="muted">· ${c.author.name}</span>` : ''}
        </li>`,
    )}
  </ul>`;
}

/** Page links of a list: previous and next, keeping the state tab. */
export function pager(base: string, state: string, page: number, hasNext: boolean): Html {
  const href = (p: number) => `${base}?state=${encodeURIComponent(state)}&page=${p}`;
  if (page <= 1 && !hasNext) return html``;
  return html`<nav class="pager" aria-label="Pages">
    ${page > 1 ? html`<a class="button secondary" href="${href(page - 1)}">Previous</a>` : ''}
    <span class="muted">Page ${page}</span>
    ${hasNext ? html`<a class="button secondary" href="${href(page + 1)}">Next</a>` : ''}
  </nav>`;
}

export function stateTabs(
  base: string,
  states: readonly (readonly [string, string])[],
  current: string,
): Html {
  return html`<nav class="tabs" aria-label="State">
    ${states.map(
      ([state, label]) =>
        html`<a href="${base}?state=${state}" ${state === current ? html`aria-current="page"` : ''}
          >${label}</a
        >`,
    )}
  </nav>`;
}

export interface ListRow {
  href: string;
  reference: string;
  title: string;
  state: string;
  detail: Html | string;
}

export function listRows(rows: readonly ListRow[], empty: string): Html {
  if (rows.length === 0) return html`<p class="empty muted">${empty}</p>`;
  return html`<ul class="objects">
    ${rows.map(
      (row) =>
        html`<li>
          <a href="${row.href}"
            ><span class="muted">${row.reference}</span> <strong>${row.title}</strong></a
          >
          ${stateBadge(row.state)}
          <p class="muted">${row.detail}</p>
        </li>`,
    )}
  </ul>`;
}

/** A project's list of one kind (issues, merge requests, milestones): its tabs, rows and pages. */
export function listSection(list: {
  project: ProjectView;
  tab: string;
  heading: string;
  base: string;
  states: readonly (readonly [string, string])[];
  at: { state: string; page: number };
  rows: readonly ListRow[];
  empty: string;
  hasNext: boolean;
}): Html {
  return html`<section class="card object">
    ${projectBar(list.project, list.tab)}
    <h1>${list.heading}</h1>
    ${stateTabs(list.base, list.states, list.at.state)} ${listRows(list.rows, list.empty)}
    ${pager(list.base, list.at.state, list.at.page, list.hasNext)}
  </section>`;
}
