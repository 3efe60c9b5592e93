/**
 * The activity pages (GitLab's as the model): `/dashboard/activity` (the signed-in user's
 * projects, REST's `scope=all`) with its tabs `/dashboard/activity/starred` and
 * `/dashboard/activity/followed` (dashboard-scopes.ts), `/:username` (a user's activity with the contribution calendar,
 * also as JSON at `/users/:username/calendar.json`), and a project's page at its full path
 * (`/acme/platform/api`, nested groups included) and `…/activity`: the `web_url`s the APIs emit.
 * Every listing goes through the activity service, so what a page shows is what the API lists
 * for the same viewer; an unreadable project or unknown user is the not-found page.
 *
 * Project paths have any depth, so they are routes of 2 to MAX_SEGMENTS parameters: static routes
 * (`/profile/…`, `/oauth/…`) and `….atom` routes keep precedence, and a path these routes do not
 * own goes to the server's not-found handler as if no route had matched.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { calendarDays, dayKey } from '../domain/calendar.js';
import { NotFoundError } from '../domain/errors.js';
import { projectDisplayName } from '../domain/event-wording.js';
import { type Viewer, canReadUserProfile, viewerOf } from '../domain/visibility.js';
import { CONTRIBUTIONS } from '../domain/activity-tabs.js';
import { isUsername } from '../domain/account-names.js';
import { browserSessionToken } from '../http/credentials.js';
import { sendJson } from '../http/json.js';
import type { Services } from '../services/container.js';
import type { UserView } from '../services/views.js';
import { activityParams } from './activity-params.js';
import { DASHBOARD_SCOPES, type DashboardScope, dashboardTabs } from './dashboard-scopes.js';
import { type ActivityFeed, type PageFrame, sendActivity } from './activity-page.js';
import { calendarSection } from './calendar.js';
import { type PageContext, pageContext, requireUser } from './guard.js';
import { errorPage, html, sendHtml } from './html.js';
import { LIVE_SCRIPT_PREFIX, liveScript } from './live-script.js';
import { projectLinks } from './object-templates.js';
import { projectSubpages } from './project-pages.js';
import { signedIn } from './session.js';
import { followControl, starControl } from './social.js';

/** GitLab nests groups 20 deep: 20 groups, the project, `activity`. */
const MAX_SEGMENTS = 22;
/** A group or project path segment (GitLab's path characters). */
const PATH_SEGMENT = /^[A-Za-z0-9_.][A-Za-z0-9_.-]*$/;
/** First segments that belong to other parts of the server, never to a namespace. */
const RESERVED = new Set([
  'api',
  'oauth',
  '-',
  '.well-known',
  'assets',
  'graphiql',
  'graphql',
  'users',
  'profile',
  'dashboard',
]);

/** Whether a request path's first segment belongs to another part of the server. */
export function isReservedPath(url: string): boolean {
  const first = url.slice(1).split(/[/?]/, 1)[0] ?? '';
  return RESERVED.has(first);
}

async function optionalContext(services: Services, request: FastifyRequest) {
  const signed = await signedIn(services, request);
  return signed ? pageContext(services, signed.session, signed.user) : null;
}

/**
 * `atom`: the page's feed, a path of the Atom face and its title. Signed in, its address carries
 * the viewer's feed token, as the feed token page gives it, so a reader sees what the page shows.
 */
async function frameOf(
  services: Services,
  request: FastifyRequest,
  ctx: PageContext | null,
  title: string,
  header: ReturnType<typeof html>,
  atom: { path: string; title: string },
): Promise<PageFrame> {
  const token = ctx ? await browserSessionToken(services, request) : null;
  const href = `${services.config.externalUrl}${atom.path}`;
  return {
    title,
    header,
    nav: ctx?.nav ?? null,
    csrf: token?.token ?? null,
    script: (await liveScript()).url,
    now: services.clock.now(),
    atom: async () => {
      const feedToken = ctx ? await services.feedTokens.tokenFor(ctx.user.id) : null;
      return {
        title: atom.title,
        href: feedToken ? `${href}?feed_token=${encodeURIComponent(feedToken)}` : href,
      };
    },
    avatars: services.config,
  };
}

function badRequest(reply: FastifyReply, reason: string, ctx: PageContext | null) {
  return sendHtml(reply, 400, errorPage('Bad request', reason, ctx?.nav ?? null));
}

/** Null when not found (or not readable by this viewer). */
async function orNotFound<T>(lookup: Promise<T>): Promise<T | null> {
  try {
    return await lookup;
  } catch (error) {
    if (error instanceof NotFoundError) return null;
    throw error;
  }
}

/** The dashboard and the calendar: pages at known paths, in the page budget. */
export function activityRoutes(pages: FastifyInstance, services: Services): void {
  const handlers = activityHandlers(services);
  for (const scope of DASHBOARD_SCOPES) {
    pages.get(scope.path, (request, reply) => handlers.dashboard(request, reply, scope));
  }
  pages.get('/users/:username/calendar.json', handlers.calendar);
}

/**
 * The script and the routes of every path shaped like a user's or a project's. Their scope leaves
 * paths of other parts of the server (`/api/…`), which they hand to the not-found handler, out of
 * the page budget.
 */
export function activityPathRoutes(paths: FastifyInstance, services: Services): void {
  const handlers = activityHandlers(services);
  paths.get(`${LIVE_SCRIPT_PREFIX}:file`, handlers.script);
  paths.get('/:username', handlers.user);
  let pattern = '';
  for (let i = 1; i <= MAX_SEGMENTS; i++) {
    pattern += `/:s${i}`;
    if (i >= 2) paths.get(pattern, handlers.byPath);
  }
}

function activityHandlers(services: Services) {
  const { activity } = services;
  const subpages = projectSubpages(services, (request) => optionalContext(services, request));

  /** A user's contributions the viewer may see, per UTC day from `first` (days since 1970). */
  async function contributions(user: UserView, viewer: Viewer | null, first: number) {
    const answer = await activity.read({
      source: { kind: 'user', user },
      filter: { sort: 'desc', kinds: CONTRIBUTIONS, createdFrom: first * 86_400_000 },
      page: { perDay: true },
      viewer,
    });
    return answer.notModified ? [] : answer.page;
  }

  async function script(request: FastifyRequest, reply: FastifyReply) {
    const script = await liveScript();
    if ((request.params as { file: string }).file !== script.file) return reply.callNotFound();
    return reply
      .header('content-type', 'text/javascript; charset=utf-8')
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('x-content-type-options', 'nosniff')
      .send(script.body);
  }

  async function dashboard(request: FastifyRequest, reply: FastifyReply, scope: DashboardScope) {
    const params = activityParams(request.query);
    // Rows for the page's script: a session that ended is a 401, never a sign-in redirect that
    // would remember the rows' URL as the page to come back to.
    if (!('error' in params) && (params.after !== undefined || params.fragment)) {
      if (!(await optionalContext(services, request))) {
        return sendHtml(reply, 401, errorPage('Signed out', 'Sign in again to see new activity.'));
      }
    }
    const ctx = await requireUser(services, request, reply);
    if (!ctx) return reply;
    if ('error' in params) return badRequest(reply, params.error, ctx);
    const viewer = viewerOf(ctx.user);
    const feed: ActivityFeed = {
      path: scope.path,
      source: { kind: 'viewer', scope: scope.scope },
      viewer,
      subscribe: scope.subscribe,
      empty: scope.empty,
    };
    const header = html`<header class="page-header">
      <h1>Activity</h1>
      <p class="muted">${scope.lead}</p>
    </header>`;
    const frame = await frameOf(services, request, ctx, 'Activity', header, scope.atom);
    return sendActivity(activity, reply, feed, params, {
      ...frame,
      aside: dashboardTabs(scope, params.date?.key),
    });
  }

  async function calendar(request: FastifyRequest, reply: FastifyReply) {
    const { username } = request.params as { username: string };
    const user = isUsername(username)
      ? await orNotFound(activity.findUserByUsername(username))
      : null;
    if (!user) return reply.callNotFound();
    const ctx = await optionalContext(services, request);
    const range = calendarDays(services.clock.now());
    const days = await contributions(user, ctx ? viewerOf(ctx.user) : null, range.first);
    const body: Record<string, number> = {};
    for (const { day, count } of days.sort((a, b) => a.day - b.day)) {
      if (day >= range.first && day <= range.last) body[dayKey(day)] = count;
    }
    reply.header('cache-control', 'no-store');
    return sendJson(reply, 200, body);
  }

  async function userPage(request: FastifyRequest, reply: FastifyReply, username: string) {
    const user = isUsername(username)
      ? await orNotFound(activity.findUserByUsername(username))
      : null;
    if (!user) return reply.callNotFound();
    const ctx = await optionalContext(services, request);
    const params = activityParams(request.query);
    if ('error' in params) return badRequest(reply, params.error, ctx);
    const viewer = ctx ? viewerOf(ctx.user) : null;
    const readable = canReadUserProfile(user, viewer);
    const feed: ActivityFeed = {
      path: `/${user.username}`,
      source: { kind: 'user', user },
      viewer,
      subscribe: { user: user.username },
      empty: readable ? 'No activity yet.' : profileNotice(user),
    };
    let aside;
    if (readable && params.before === undefined && params.after === undefined) {
      const range = calendarDays(services.clock.now());
      const days = await contributions(user, viewer, range.first);
      aside = calendarSection(new Map(days.map((d) => [d.day, d.count])), range, {
        path: feed.path,
        tab: params.tab,
        selected: params.date?.key,
      });
    }
    const follows = readable ? await services.navigation.users.follows(user, viewer) : null;
    const header = html`<header class="page-header">
      <h1>${readable ? user.name : user.username}</h1>
      <p class="muted">@${user.username}</p>
      ${follows ? followControl(user, follows, ctx) : ''}
    </header>`;
    const title = readable ? `${user.name} (@${user.username})` : `@${user.username}`;
    const atom = { path: `/${user.username}.atom`, title: `${user.username} activity` };
    const frame = await frameOf(services, request, ctx, title, header, atom);
    return sendActivity(activity, reply, feed, params, aside ? { ...frame, aside } : frame);
  }

  async function projectPage(request: FastifyRequest, reply: FastifyReply, segments: string[]) {
    const ctx = await optionalContext(services, request);
    const viewer = ctx ? viewerOf(ctx.user) : null;
    // `…/activity` is the activity of the project before it, when there is one readable.
    let path = segments.join('/');
    let resolved =
      segments.length >= 3 && segments.at(-1) === 'activity'
        ? await orNotFound(activity.findProject(segments.slice(0, -1).join('/'), viewer))
        : null;
    if (resolved) path = `${segments.slice(0, -1).join('/')}/activity`;
    else resolved = await orNotFound(activity.findProject(path, viewer));
    if (!resolved) return reply.callNotFound();
    const params = activityParams(request.query);
    if ('error' in params) return badRequest(reply, params.error, ctx);
    const found = resolved;
    const { project } = found;
    const feed: ActivityFeed = {
      path: `/${path}`,
      source: { kind: 'project', project: found },
      viewer,
      subscribe: { project: project.fullPath },
      empty: 'No activity in this project yet.',
    };
    const actor = ctx && viewer ? { user: ctx.user, viewer } : null;
    const stars = await services.content.reading(actor).stars.state(String(project.id));
    const header = html`<header class="page-header">
      <h1>${project.name}</h1>
      <p class="muted project-path">${projectDisplayName(project.fullPath)}</p>
      ${project.description ? html`<p class="muted">${project.description}</p>` : ''}
      ${projectLinks(project)} ${starControl(project.fullPath, stars, ctx)}
    </header>`;
    const title = `${project.name} · ${project.fullPath}`;
    const atom = { path: `/${project.fullPath}.atom`, title: `${project.name} activity` };
    return sendActivity(
      activity,
      reply,
      feed,
      params,
      await frameOf(services, request, ctx, title, header, atom),
    );
  }

  async function user(request: FastifyRequest, reply: FastifyReply) {
    const { username } = request.params as { username: string };
    return userPage(request, reply, username);
  }

  async function byPath(request: FastifyRequest, reply: FastifyReply) {
    const segments = Object.values(request.params as Record<string, string>);
    if (RESERVED.has(segments[0] ?? '')) return reply.callNotFound();
    // Trailing slashes: the canonical page, when there is one for this viewer.
    let end = segments.length;
    while (end > 0 && segments[end - 1] === '') end--;
    const kept = segments.slice(0, end);
    const below = await objectPage(request, reply, kept, end < segments.length);
    if (below !== undefined) return below;
    if (kept.length === 0 || !kept.every((s) => PATH_SEGMENT.test(s))) {
      return reply.callNotFound();
    }
    if (end < segments.length) return canonical(request, reply, kept);
    return kept.length === 1
      ? userPage(request, reply, kept[0]!)
      : projectPage(request, reply, kept);
  }

  /**
   * A group's page (`/groups/acme/platform`) or a page under a project's `/-/`; undefined when the
   * path is neither, so it is read as a user's or a project's.
   */
  async function objectPage(
    request: FastifyRequest,
    reply: FastifyReply,
    kept: string[],
    trailing: boolean,
  ): Promise<FastifyReply | undefined> {
    const dash = kept.indexOf('-');
    const isGroup = kept[0] === 'groups' && kept.length >= 2;
    if (!isGroup && dash === -1) return undefined;
    const owner = isGroup ? kept.slice(1) : kept.slice(0, dash);
    if (trailing || (!isGroup && owner.length < 2) || !owner.every((s) => PATH_SEGMENT.test(s))) {
      reply.callNotFound();
      return reply;
    }
    const page = isGroup
      ? await subpages.groupPage(request, reply, owner.join('/'))
      : await subpages.projectSubpage(request, reply, owner.join('/'), kept.slice(dash + 1));
    if (page) return page;
    reply.callNotFound();
    return reply;
  }

  async function canonical(request: FastifyRequest, reply: FastifyReply, kept: string[]) {
    const ctx = await optionalContext(services, request);
    const viewer = ctx ? viewerOf(ctx.user) : null;
    const exists =
      kept.length === 1
        ? isUsername(kept[0]!) && (await orNotFound(activity.findUserByUsername(kept[0]!)))
        : (await orNotFound(activity.findProject(kept.join('/'), viewer))) ||
          (kept.at(-1) === 'activity' &&
            kept.length >= 3 &&
            (await orNotFound(activity.findProject(kept.slice(0, -1).join('/'), viewer))));
    if (!exists) return reply.callNotFound();
    const at = request.url.indexOf('?');
    return reply.redirect(`/${kept.join('/')}${at === -1 ? '' : request.url.slice(at)}`, 308);
  }

  return { script, dashboard, calendar, user, byPath };
}

function profileNotice(user: UserView): string {
  return user.state === 'blocked' ? 'This user is blocked.' : 'This user has a private profile.';
}
