/**
 * What every activity page shares: the tabs, the list, "Load more", the rows-only answers the
 * page's script fetches, and the data the script needs to stay live (what to subscribe to, where
 * to fetch new rows, the session's GraphQL token, the server's clock).
 */
import type { FastifyReply } from 'fastify';
import { ACTIVITY_TABS, TAB_LABELS, tabKinds } from '../domain/activity-tabs.js';
import type { EventFilter } from '../domain/filters.js';
import type { EventListing, EventView } from '../services/activity/activity.js';
import { type ActivityParams, activityHref } from './activity-params.js';
import { eventItem } from './event-item.js';
import { type Html, type Nav, html, layout, sendHtml } from './html.js';

/** Events per page, as GitLab loads them. */
export const PAGE_SIZE = 20;
/** New rows per answer to the script; it asks again while there are more. */
const NEW_ROWS = 50;

/** One page's source of events, whatever it is (the dashboard, a user, a project). */
export interface ActivityFeed {
  /** The page's path, e.g. `/acme/api/activity`. */
  path: string;
  listing(filter: EventFilter): EventListing;
  /** `eventCreated`'s arguments for this page. */
  subscribe: { project?: string; user?: string };
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
}

function filterOf(params: ActivityParams, sort: 'asc' | 'desc'): EventFilter {
  const kinds = tabKinds(params.tab);
  return kinds ? { sort, kinds } : { sort };
}

function rows(events: readonly EventView[], now: number, more: boolean, next: number | null): Html {
  return html`<ol class="events" data-more="${more ? 'true' : 'false'}" data-next="${next ?? ''}">
    ${events.map((event) => eventItem(event, now))}
  </ol>`;
}

function tabs(feed: ActivityFeed, params: ActivityParams): Html {
  return html`<nav class="tabs" aria-label="Filter activity">
    ${ACTIVITY_TABS.map(
      (tab) =>
        html`<a
          href="${activityHref(feed.path, tab)}"
          ${tab === params.tab ? html`aria-current="page"` : ''}
          >${TAB_LABELS[tab]}</a
        >`,
    )}
  </nav>`;
}

/**
 * Answers an activity request: rows newer than `after` (oldest first in the query, newest first
 * on the page), a page of older rows, or the whole page.
 */
export async function sendActivity(
  reply: FastifyReply,
  feed: ActivityFeed,
  params: ActivityParams,
  frame: PageFrame,
): Promise<FastifyReply> {
  if (params.after !== undefined) {
    const listing = feed.listing(filterOf(params, 'asc'));
    const found = await listing.window({ afterId: params.after, limit: NEW_ROWS + 1 });
    const more = found.length > NEW_ROWS;
    const events = found.slice(0, NEW_ROWS).reverse();
    return sendHtml(reply, 200, rows(events, frame.now, more, null));
  }
  const listing = feed.listing(filterOf(params, 'desc'));
  const found = await listing.window({
    ...(params.before === undefined ? {} : { afterId: params.before }),
    limit: PAGE_SIZE + 1,
  });
  const more = found.length > PAGE_SIZE;
  const events = found.slice(0, PAGE_SIZE);
  const last = events.at(-1)?.id ?? null;
  if (params.fragment) return sendHtml(reply, 200, rows(events, frame.now, more, last));

  const older = params.before !== undefined;
  const live = older
    ? ''
    : html` data-live data-rows="${activityHref(feed.path, params.tab)}"
      data-subscribe="${JSON.stringify(feed.subscribe)}" data-now="${frame.now}"
      ${frame.csrf ? html`data-csrf="${frame.csrf}"` : ''}`;
  const body = html`<section class="card activity" ${live}>
    ${frame.header} ${frame.aside ?? ''} ${tabs(feed, params)}
    ${
      older
        ? html`<p>
            <a href="${activityHref(feed.path, params.tab)}">Back to the newest events</a>
          </p>`
        : ''
    }
    ${events.length === 0 ? html`<p class="empty muted">${feed.empty}</p>` : ''}
    ${rows(events, frame.now, more, last)}
    ${
      more && last !== null
        ? html`<p class="center">
            <a
              class="button secondary load-more"
              href="${activityHref(feed.path, params.tab, last)}"
              >Load more</a
            >
          </p>`
        : ''
    }
  </section>`;
  return sendHtml(reply, 200, layout(frame.title, body, frame.nav, { scripts: [frame.script] }));
}
