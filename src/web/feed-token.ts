/**
 * `/profile/feed_token`: the signed-in user's feed token (read access to their Atom feeds only),
 * the feed addresses that carry it, and a reset (confirmed, CSRF-protected POST) that makes the
 * previous token stop working at once.
 */
import type { FastifyInstance } from 'fastify';
import type { Services } from '../services/container.js';
import { forUser } from './guard.js';
import { confirmPage, copyButton, html, layout, messages, sendHtml } from './html.js';

const PAGE = '/profile/feed_token';
const RESET = `${PAGE}/reset`;

export function feedTokenRoutes(app: FastifyInstance, services: Services): void {
  app.get(
    PAGE,
    forUser(services, async (ctx, request, reply) => {
      const base = services.config.externalUrl;
      const token = await services.feedTokens.tokenFor(ctx.user.id);
      const done = (request.query as { done?: string }).done === 'reset';
      const feeds = [
        ['Your activity', `${base}/${ctx.user.username}.atom?feed_token=${token}`],
        ['Your projects’ activity', `${base}/dashboard/projects.atom?feed_token=${token}`],
      ] as const;
      return sendHtml(
        reply,
        200,
        layout(
          'Feed token',
          html`${done ? messages(['Your feed token was reset. The old one no longer works.'], 'notice') : ''}
            <section class="card">
              <h1>Feed token</h1>
              <p class="muted">
                Your feed token authenticates your Atom feeds (activity, your projects, any project
                feed: <code>/group/project.atom?feed_token=…</code>). It gives read access to feeds
                only. Keep it secret: anyone who has it can read your feeds.
              </p>
              <p class="secret">
                <code id="feed-token">${token}</code> ${copyButton('feed-token', 'token')}
              </p>
              <ul class="feeds">
                ${feeds.map(
                  ([label, url], i) =>
                    html`<li>
                      ${label}: <code id="feed-url-${i}">${url}</code>
                      ${copyButton(`feed-url-${i}`, 'address')}
                    </li>`,
                )}
              </ul>
              <a class="button danger" href="${RESET}">Reset feed token</a>
            </section>`,
          ctx.nav,
        ),
      );
    }),
  );

  app.get(
    RESET,
    forUser(services, async (ctx, request, reply) => {
      return sendHtml(
        reply,
        200,
        confirmPage({
          title: 'Reset feed token',
          question: html`Reset your feed token?`,
          consequence:
            'Feed readers using the current token stop receiving your feeds until you give them the new address.',
          action: RESET,
          button: 'Reset feed token',
          cancel: PAGE,
          csrf: ctx.csrf,
          nav: ctx.nav,
        }),
      );
    }),
  );

  // The form token is checked for every POST by the pages' guard (web/guard.ts).
  app.post(
    RESET,
    forUser(services, async (ctx, request, reply) => {
      await services.feedTokens.reset(ctx.user.id);
      return reply.redirect(`${PAGE}?done=reset`, 303);
    }),
  );
}
