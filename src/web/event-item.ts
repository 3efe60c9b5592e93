/**
 * One event as the activity pages list it, in GitLab's words (domain/event-wording): who, what,
 * on which issue or branch, in which project, when (relative, the exact time on hover), with the
 * commits of a push and the start of a comment. Links go to the user's and the project's pages.
 */
import { eventTargetUrl } from '../domain/event-links.js';
import { eventWording, projectDisplayName } from '../domain/event-wording.js';
import type { EventView } from '../services/activity/activity.js';
import { exactTime, relativeTime } from './client/relative-time.js';
import { type Html, html } from './html.js';
import { type AvatarStyle, avatar } from './identicon.js';

/** Commits a push shows (GitLab shows a few, then "… and N more commits"). */
const COMMITS_SHOWN = 3;
const NOTE_EXCERPT = 240;

export function timeTag(at: number, now: number): Html {
  return html`<time datetime="${new Date(at).toISOString()}" title="${exactTime(at)}"
    >${relativeTime(at, now)}</time
  >`;
}

function authorLink(event: EventView): Html {
  const author = event.author;
  if (!author) return html`<span class="author">A deleted user</span>`;
  return html`<a class="author" href="/${author.username}" title="${author.name}"
    >${author.username}</a
  >`;
}

function projectLink(event: EventView): Html {
  return html`<a class="project" href="/${event.project.fullPath}"
    >${projectDisplayName(event.project.fullPath)}</a
  >`;
}

/**
 * The target's page as the feed links the entry (a same-origin path), or null when it has none:
 * what was destroyed is gone, and a target without a page of its own leads to the project.
 */
function targetHref(event: EventView): string | null {
  if (event.actionName === 'destroyed') return null;
  const href = eventTargetUrl('', event);
  return href === `/${event.project.fullPath}` ? null : href;
}

/** `#1`, `!1`, a branch: linked to its page. */
function referenceLink(event: EventView, reference: string): Html {
  const href = targetHref(event);
  if (href === null) return html`<strong>${reference}</strong>`;
  return html`<a class="reference" href="${href}"><strong>${reference}</strong></a>`;
}

/** A full commit id (SHA-1 or SHA-256): the commit pages' address. */
const FULL_COMMIT_ID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/** A commit's page in its project; null for an id that names no page (abbreviated, malformed). */
function commitHref(fullPath: string, sha: string): string | null {
  return FULL_COMMIT_ID.test(sha) ? `/${fullPath}/-/commit/${sha}` : null;
}

/** The commit's short id, linked to its page when it has one. */
export function commitId(fullPath: string, sha: string): Html {
  const href = commitHref(fullPath, sha);
  const code = html`<code>${sha.slice(0, 8)}</code>`;
  return href ? html`<a href="${href}">${code}</a>` : code;
}

function sentence(event: EventView): Html {
  const { verb, object } = eventWording(event);
  if (!object) return html`${authorLink(event)} ${verb} project ${projectLink(event)}`;
  const reference =
    object.reference === null ? '' : html` ${referenceLink(event, object.reference)}`;
  // A milestone has no reference in GitLab's sentences: its title is the link.
  const href = object.reference === null ? targetHref(event) : null;
  const title =
    object.title === null
      ? ''
      : href === null
        ? html` <span class="target-title">«${object.title}»</span>`
        : html` <a class="target-title reference" href="${href}">«${object.title}»</a>`;
  return html`${authorLink(event)} ${verb} ${object.label}${reference}${title} at
  ${projectLink(event)}`;
}

function details(event: EventView): Html | string {
  const push = event.push;
  if (push && push.commits.length > 0) {
    const shown = push.commits.slice(0, COMMITS_SHOWN);
    const more = push.commitCount - shown.length;
    return html`<ul class="commits">
      ${shown.map(
        (c) =>
          html`<li>
            ${commitId(event.project.fullPath, c.id)}
            <span>${c.message.split('\n')[0]}</span>
          </li>`,
      )}
      ${
        more > 0
          ? html`<li class="muted">… and ${more} more commit${more === 1 ? '' : 's'}</li>`
          : ''
      }
    </ul>`;
  }
  if (event.note && !event.note.system) {
    const body = event.note.body;
    const excerpt = body.length > NOTE_EXCERPT ? `${body.slice(0, NOTE_EXCERPT)}…` : body;
    return html`<blockquote class="note">${excerpt}</blockquote>`;
  }
  return '';
}

export function eventItem(event: EventView, now: number, avatars: AvatarStyle): Html {
  return html`<li class="event" data-id="${event.id}">
    ${avatar(event.author, avatars)}
    <div class="event-body">
      <p class="event-line">${sentence(event)}</p>
      ${details(event)} ${timeTag(event.createdAt, now)}
    </div>
  </li>`;
}
