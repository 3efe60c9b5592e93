/**
 * What every activity page shares: the tabs, the list, "Load more", the rows-only answers the
 * page's script fetches, and the data the script needs to stay live (what to subscribe to, where
 * to fetch new rows, the session's GraphQL token, the server's clock).
 */
import type { FastifyReply } from 'fastify';
import { ACTIVITY_TABS, TAB_LABELS, tabKinds } from '../domain/activity-tabs.js';
import type { EventFilter } from '../domain/filters.js';
import type {
  ActivityService,
  ActivitySource,
  EventView,
  KeysetWindow,
} from '../services/activity/activity.js';
import type { Viewer } from '../domain/visibility.js';
import { type ActivityParams, activityHref } from './activity-params.js';
import { eventItem } from './event-item.js';
import { type FeedLink, type Html, type Nav, html, layout, sendHtml } from './html.js';
import { type AvatarStyle, avatarImageSources } from './identicon.js';

/** Events per page, as GitLab loads them. */
export const PAGE_SIZE = 20;
/** New rows per answer to the script; it asks again while there are more. */
const NEW_ROWS = 50;

/** One page's source of events, whatever it is (the dashboard, a user, a project). */
export interface ActivityFeed {
  /** The page's path, e.g. `/acme/api/activity`. */
  path: string;
  source: ActivitySource;
  viewer: Viewer | null;
  /** `eventCreated`'s arguments for this page. */
  subscribe: { project?: string; user?: string; scope?: 'STARRED' | 'FOLLOWED' };
  empty: string;
}

export interface PageFrame {
  title: string;
  header: Html;
  /** Between the header and the tabs (the calendar). */
  aside?: Html;
  nav: Nav | null;
  /** The session's GraphQL CSRF token, for the subscription. */
  csrf: string | null;
  script: string;
  now: number;
  /**
   * The page's Atom feed (with the viewer's feed token when signed in): asked for by whole pages
   * only, not by the rows the script polls for.
   */
  atom: () => Promise<FeedLink>;
  avatars: AvatarStyle;
}

function filterOf(params: ActivityParams, sort: 'asc' | 'desc'): EventFilter {
  const kinds = tabKinds(params.tab);
  const filter: EventFilter = kinds ? { sort, kinds } : { sort };
  if (params.date) {
    filter.createdFrom = params.date.createdFrom;
    filter.createdBefore = params.date.createdBefore;
  }
  return filter;
}

function rows(
  events: readonly EventView[],
  frame: PageFrame,
  more: boolean,
  next: number | null,
): Html {
  return html`<ol class="events" data-more="${more ? 'true' : 'false'}" data-next="${next ?? ''}">
    ${events.map((event) => eventItem(event, frame.now, frame.avatars))}
  </ol>`;
}

function tabs(feed: ActivityFeed, params: ActivityParams): Html {
  return html`<nav class="tabs" aria-label="Filter activity">
    ${ACTIVITY_TABS.map(
      (tab) =>
        html`<a
          href="${activityHref(feed.path, { tab, date: params.date?.key })}"
          ${tab === params.tab ? html`aria-current="page"` : ''}
          >${TAB_LABELS[tab]}</a
        >`,
    )}
  </nav>`;
}

const WEEKDAY_NAMES = [
  'Sunday',
  'Monday',
  'Tuesday',
  'Wednesday',
  'Thursday',
  'Friday',
  'Saturday',
];
const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** "Monday 20 April 2026" of a day's key (in UTC, like the calendar; not the runtime's locale). */
function longDay(key: string): string {
  const day = new Date(`${key}T00:00:00Z`);
  return `${WEEKDAY_NAMES[day.getUTCDay()]} ${day.getUTCDate()} ${MONTH_NAMES[day.getUTCMonth()]} ${day.getUTCFullYear()}`;
}

/** The day the list is narrowed to, and the way back to every day. */
function dayFilter(feed: ActivityFeed, params: ActivityParams): Html | string {
  if (!params.date) return '';
  return html`<p class="day-filter">
    Activity on
    <strong><time datetime="${params.date.key}">${longDay(params.date.key)}</time></strong> (UTC) ·
    <a href="${activityHref(feed.path, { tab: params.tab })}">Show every day</a>
  </p>`;
}

const FEED_ICON = html`<svg viewBox="0 0 16 16" width="14" height="14" aria-hidden="true">
  <circle cx="3" cy="13" r="2" fill="currentColor" />
  <path
    d="M1 6.5a8.5 8.5 0 0 1 8.5 8.5M1 1.5A13.5 13.5 0 0 1 14.5 15"
    fill="none"
    stroke="currentColor"
    stroke-width="2"
  />
</svg>`;

function feedButton(atom: FeedLink): Html {
  return html`<a
    class="button secondary feed-button"
    href="${atom.href}"
    type="application/atom+xml"
    >${FEED_ICON} Atom feed</a
  >`;
}

/**
 * Answers an activity request: rows newer than `after` (oldest first in the query, newest first
 * on the page), a page of older rows, or the whole page.
 */
export async function sendActivity(
  activity: ActivityService,
  reply: FastifyReply,
  feed: ActivityFeed,
  params: ActivityParams,
  frame: PageFrame,
): Promise<FastifyReply> {
  const read = async (sort: 'asc' | 'desc', page: KeysetWindow) => {
    const { source, viewer } = feed;
    const answer = await activity.read({ source, filter: filterOf(params, sort), page, viewer });
    return answer.notModified ? [] : answer.page.events;
  };
  if (params.after !== undefined) {
    const found = await read('asc', { afterId: params.after, limit: NEW_ROWS + 1 });
    const more = found.length > NEW_ROWS;
    const events = found.slice(0, NEW_ROWS).reverse();
    return sendHtml(reply, 200, rows(events, frame, more, null), avatarImageSources(frame.avatars));
  }
  const found = await read('desc', {
    ...(params.before === undefined ? {} : { afterId: params.before }),
    limit: PAGE_SIZE + 1,
  });
  const more = found.length > PAGE_SIZE;
  const events = found.slice(0, PAGE_SIZE);
  const last = events.at(-1)?.id ?? null;
  const images = avatarImageSources(frame.avatars);
  if (params.fragment) return sendHtml(reply, 200, rows(events, frame, more, last), images);

  const older = params.before !== undefined;
  const here = { tab: params.tab, date: params.date?.key };
  // The script fetches new rows of the same tab and day: a past day's list simply stays as is.
  const live = older
    ? ''
    : html` data-live data-rows="${activityHref(feed.path, here)}"
      data-subscribe="${JSON.stringify(feed.subscribe)}" data-now="${frame.now}"
      ${frame.csrf ? html`data-csrf="${frame.csrf}"` : ''}`;
  const empty = params.date ? 'No activity on this day.' : feed.empty;
  const atom = await frame.atom();
  const body = html`<section class="card activity" ${live}>
    <div class="page-head">${frame.header} ${feedButton(atom)}</div>
    ${frame.aside ?? ''} ${tabs(feed, params)} ${dayFilter(feed, params)}
    ${
      older
        ? html`<p>
            <a href="${activityHref(feed.path, here)}">Back to the newest events</a>
          </p>`
        : ''
    }
    ${events.length === 0 ? html`<p class="empty muted">${empty}</p>` : ''}
    ${rows(events, frame, more, last)}
    ${
      more && last !== null
        ? html`<p class="center">
            <a
              class="button secondary load-more"
              href="${activityHref(feed.path, { ...here, before: last })}"
              >Load more</a
            >
          </p>`
        : ''
    }
  </section>`;
  return sendHtml(
    reply,
    200,
    layout(frame.title, body, frame.nav, { scripts: [frame.script], feeds: [atom] }),
    images,
  );
}
