/**
 * The confirmation step of a destructive action on one of the signed-in user's own things (an
 * application, a token): `GET {base}/:id/{action}` asks, and its form posts to the same address,
 * whose route does the work. A thing that is not theirs (or no longer there) is a 404 page.
 */
import type { FastifyInstance } from 'fastify';
import type { Services } from '../services/container.js';
import { forUser } from './guard.js';
import { type Html, confirmPage, errorPage, sendHtml } from './html.js';
import { pathId } from './path-id.js';

export interface Confirmation {
  title: string;
  question: (name: string) => Html;
  consequence: string;
  button: string;
}

export function confirmationRoute(
  app: FastifyInstance,
  services: Services,
  options: {
    /** The list page: where the step is reached from and where Cancel goes back. */
    base: string;
    action: string;
    /** What the 404 page says is missing, as "No such {missing}.". */
    missing: string;
    /** The user's own thing with this id, if it can take the action. */
    find: (userId: number, id: number) => Promise<{ id: number; name: string } | undefined>;
    text: Confirmation;
  },
): void {
  const { base, action, text } = options;
  app.get(
    `${base}/:id/${action}`,
    forUser(services, async (ctx, request, reply) => {
      const id = pathId(request.params);
      const target = id === null ? undefined : await options.find(ctx.user.id, id);
      if (!target) {
        return sendHtml(reply, 404, errorPage('Not found', `No such ${options.missing}.`, ctx.nav));
      }
      return sendHtml(
        reply,
        200,
        confirmPage({
          title: text.title,
          question: text.question(target.name),
          consequence: text.consequence,
          action: `${base}/${target.id}/${action}`,
          button: text.button,
          cancel: base,
          csrf: ctx.csrf,
          nav: ctx.nav,
        }),
      );
    }),
  );
}
