/**
 * The star button of a project's page and the follow button of a user's page, with their counts,
 * and the two POST forms behind them (CSRF-checked by the pages' guard, as every form). A star or
 * follow goes through the same write as the API's; the form answers with a redirect back to the
 * page (303), or an error page.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { NotFoundError } from '../domain/errors.js';
import { FollowLimitError } from '../domain/follows.js';
import { viewerOf } from '../domain/visibility.js';
import type { Services } from '../services/container.js';
import type { FollowCounts } from '../services/navigation/navigation.js';
import type { UserView } from '../services/views.js';
import type { PageContext } from './guard.js';
import { requireUser } from './guard.js';
import { type Html, csrfField, errorPage, html, sendHtml } from './html.js';
import { formValue } from './session.js';

export const STAR_PATH = '/-/star';
export const FOLLOW_PATH = '/-/follow';

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The star count, and for a signed-in viewer a Star or Unstar button. */
export function starControl(
  projectPath: string,
  state: { starCount: number; starred: boolean | null },
  ctx: PageContext | null,
): Html {
  const count = html`<span class="social-count">${plural(state.starCount, 'star', 'stars')}</span>`;
  if (!ctx || state.starred === null) return html`<div class="social">${count}</div>`;
  return toggleForm(ctx, STAR_PATH, ['project', projectPath], state.starred, {
    verb: state.starred ? 'unstar' : 'star',
    label: state.starred ? '★ Unstar' : '☆ Star',
    after: count,
  });
}

/** A POST form that turns a star or a follow on or off, with the counts after its button. */
function toggleForm(
  ctx: PageContext,
  action: string,
  [name, value]: [string, string],
  pressed: boolean,
  shown: { verb: string; label: string; after: Html },
): Html {
  return html`<form class="social" method="post" action="${action}">
    ${csrfField(ctx.csrf)}
    <input type="hidden" name="${name}" value="${value}" />
    <input type="hidden" name="action" value="${shown.verb}" />
    <button type="submit" aria-pressed="${pressed ? 'true' : 'false'}">${shown.label}</button>
    ${shown.after}
  </form>`;
}

/** Follower and following counts, and for another signed-in user a Follow or Unfollow button. */
export function followControl(user: UserView, counts: FollowCounts, ctx: PageContext | null): Html {
  const numbers = html`<span class="social-count"
      >${plural(counts.followers, 'follower', 'followers')}</span
    >
    <span class="social-count">${counts.following} following</span>`;
  if (!ctx || ctx.user.id === user.id || counts.isFollowed === null) {
    return html`<div class="social">${numbers}</div>`;
  }
  return toggleForm(ctx, FOLLOW_PATH, ['user_id', String(user.id)], counts.isFollowed, {
    verb: counts.isFollowed ? 'unfollow' : 'follow',
    label: counts.isFollowed ? 'Unfollow' : 'Follow',
    after: numbers,
  });
}

export function socialRoutes(pages: FastifyInstance, services: Services): void {
  const notFound = (reply: FastifyReply, ctx: PageContext, what: string) =>
    sendHtml(reply, 404, errorPage('Not found', `${what} could not be found.`, ctx.nav));

  pages.post(STAR_PATH, async (request: FastifyRequest, reply: FastifyReply) => {
    const ctx = await requireUser(services, request, reply);
    if (!ctx) return reply;
    const project = formValue(request.body, 'project') ?? '';
    const action = formValue(request.body, 'action');
    if (project === '' || (action !== 'star' && action !== 'unstar')) {
      return sendHtml(
        reply,
        400,
        errorPage('Bad request', 'Star or unstar which project?', ctx.nav),
      );
    }
    const actor = { user: ctx.user, viewer: viewerOf(ctx.user) };
    try {
      await services.content.write(actor, (ops) => ops.stars[action](project));
    } catch (error) {
      if (error instanceof NotFoundError) return notFound(reply, ctx, 'The project');
      throw error;
    }
    return reply.redirect(`/${encodeURI(project)}`, 303);
  });

  pages.post(FOLLOW_PATH, async (request: FastifyRequest, reply: FastifyReply) => {
    const ctx = await requireUser(services, request, reply);
    if (!ctx) return reply;
    const id = formValue(request.body, 'user_id') ?? '';
    const action = formValue(request.body, 'action');
    if (!/^\d{1,10}$/.test(id) || (action !== 'follow' && action !== 'unfollow')) {
      return sendHtml(reply, 400, errorPage('Bad request', 'Follow or unfollow whom?', ctx.nav));
    }
    const actor = { user: ctx.user, viewer: viewerOf(ctx.user) };
    let username: string;
    try {
      const change = await services.content.write(actor, (ops) => ops.follows[action](Number(id)));
      username = change.changed ? change.user.username : '';
    } catch (error) {
      if (error instanceof NotFoundError) return notFound(reply, ctx, 'The user');
      if (error instanceof FollowLimitError) {
        return sendHtml(reply, 400, errorPage('Cannot follow', error.message, ctx.nav));
      }
      throw error;
    }
    const back =
      username || (await services.navigation.users.get(Number(id), actor.viewer)).user.username;
    return reply.redirect(`/${encodeURIComponent(back)}`, 303);
  });
}
