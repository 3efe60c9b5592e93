// The activity pages' script (bundled with graphql-ws by web/live-script.ts): new events appear at
// the top without a reload, "Load more" appends older ones, relative times stay current.
//
// Live updates: the page subscribes to `eventCreated` over /api/graphql (graphql-transport-ws,
// the session cookie on the upgrade and the session's GraphQL CSRF token in connection_init). A
// delivered event is only a signal: the rows themselves come from the page's own fragment
// endpoint (`?after=<newest id shown>`), rendered by the server under the same visibility and
// filter as the page. When the socket cannot connect (or closes), the page polls that endpoint.
import { createClient } from 'graphql-ws';
import { relativeTime } from './relative-time.js';

const POLL_MS = 5000;
const TICK_MS = 30_000;
const SUBSCRIPTION =
  'subscription PageEvents($project: ID, $user: ID, $scope: EventScope) { eventCreated(project: $project, user: $user, scope: $scope) { id } }';

/** The rows of a fragment answer (`<ol class="events" data-more data-next>…</ol>`). */
function parseRows(text) {
  const template = document.createElement('template');
  template.innerHTML = text;
  const list = template.content.querySelector('ol.events');
  if (!list) return null;
  return {
    rows: [...list.querySelectorAll(':scope > li.event')],
    more: list.dataset.more === 'true',
    next: list.dataset.next || null,
  };
}

async function fetchRows(url) {
  const res = await fetch(url, { credentials: 'same-origin', headers: { accept: 'text/html' } });
  if (!res.ok) return null;
  return parseRows(await res.text());
}

function start(root) {
  const list = root.querySelector('ol.events');
  const rowsUrl = new URL(root.dataset.rows, window.location.href);
  const skew = Number(root.dataset.now) - Date.now();
  let running = null;
  let again = false;
  let polling = null;

  const shown = (id) => list.querySelector(`:scope > li.event[data-id="${id}"]`) !== null;
  const newest = () => {
    const first = list.querySelector(':scope > li.event');
    return first ? first.dataset.id : root.dataset.newest || '0';
  };

  async function catchUp() {
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      do {
        again = false;
        const url = new URL(rowsUrl);
        url.searchParams.set('after', newest());
        const answer = await fetchRows(url);
        if (!answer) return;
        const fresh = answer.rows.filter((row) => !shown(row.dataset.id));
        if (fresh.length > 0) {
          root.querySelector('.empty')?.remove();
          for (const row of fresh) row.classList.add('fresh');
          list.prepend(...fresh);
          tick();
        }
        if (answer.more) again = true;
      } while (again);
    })()
      .catch(() => undefined)
      .finally(() => {
        running = null;
      });
  }

  function poll() {
    if (polling !== null) return;
    root.dataset.liveMode = 'polling';
    polling = window.setInterval(catchUp, POLL_MS);
    void catchUp();
  }

  function subscribe() {
    const ws = new URL('/api/graphql', window.location.href);
    ws.protocol = ws.protocol === 'https:' ? 'wss:' : 'ws:';
    const csrf = root.dataset.csrf;
    let client;
    try {
      client = createClient({
        url: ws.href,
        connectionParams: csrf ? { 'x-csrf-token': csrf } : {},
        retryAttempts: 0,
        lazy: false,
        // Not the console: a server without the socket is a case we handle, not an error.
        onNonLazyError: () => poll(),
        on: {
          connected: () => {
            root.dataset.liveMode = 'socket';
            // Whatever happened between rendering and subscribing.
            void catchUp();
          },
          closed: () => poll(),
          error: () => poll(),
        },
      });
    } catch {
      poll();
      return;
    }
    client.subscribe(
      { query: SUBSCRIPTION, variables: JSON.parse(root.dataset.subscribe || '{}') },
      { next: () => void catchUp(), error: () => poll(), complete: () => poll() },
    );
  }

  function tick() {
    const now = Date.now() + skew;
    for (const time of root.querySelectorAll('time[datetime]')) {
      const then = Date.parse(time.getAttribute('datetime'));
      if (!Number.isNaN(then)) time.textContent = relativeTime(then, now);
    }
  }

  root.addEventListener('click', async (event) => {
    const link =
      event.target instanceof window.Element ? event.target.closest('a.load-more') : null;
    if (!link) return;
    event.preventDefault();
    const url = new URL(link.href);
    url.searchParams.set('fragment', '1');
    link.setAttribute('aria-busy', 'true');
    const answer = await fetchRows(url).catch(() => null);
    link.removeAttribute('aria-busy');
    if (!answer) {
      window.location.href = link.href;
      return;
    }
    list.append(...answer.rows.filter((row) => !shown(row.dataset.id)));
    tick();
    if (answer.more && answer.next) {
      const next = new URL(link.href);
      next.searchParams.set('before', answer.next);
      link.href = next.href;
    } else {
      link.remove();
    }
  });

  window.setInterval(tick, TICK_MS);
  subscribe();
}

for (const scroller of document.querySelectorAll('.calendar-scroll')) {
  // The newest weeks are on the right: show them first on a narrow screen, unless a chosen day
  // (the list below is narrowed to it) is further back.
  scroller.scrollLeft = scroller.scrollWidth;
  const chosen = scroller.querySelector('a.day[aria-current="date"]');
  if (chosen) {
    const left = chosen.offsetLeft - scroller.offsetLeft;
    if (left < scroller.scrollLeft) scroller.scrollLeft = left - scroller.clientWidth / 2;
  }
}
const root = document.querySelector('[data-live]');
if (root) start(root);
