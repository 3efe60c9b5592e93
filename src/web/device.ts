/**
 * The device verification pages (RFC 8628 §3.3): a signed-in user types the code a device shows
 * (`verification_uri_complete` pre-fills it; the user still submits, §5.4), sees which
 * application asks for what, and approves or denies. Wrong codes are throttled per session, user
 * and address. Every form carries the session's CSRF token (checked by the form guard).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ThrottledError } from '../domain/errors.js';
import type { Services } from '../services/container.js';
import type { GuessSource, PendingDevice } from '../services/provider/device-authorization.js';
import { DECISION_BUTTONS, scopeList } from './authorize.js';
import { type PageContext, forUser } from './guard.js';
import { type Html, csrfField, html, layout, sendHtml } from './html.js';
import { codeFormPage } from './code-form.js';
import { formValue } from './session.js';

export const DEVICE_PATH = '/oauth/device';
const CONFIRM_PATH = '/oauth/device/confirm';
export const INVALID_USER_CODE = 'That code is not valid, or it has expired or been used.';

function codeForm(ctx: PageContext, userCode: string, errors: string[]): Html {
  return codeFormPage({
    title: 'Connect a device',
    lead: 'Enter the code shown on your device or in your terminal.',
    action: DEVICE_PATH,
    csrf: ctx.csrf,
    errors,
    input: html`name="user_code" value="${userCode}" autocomplete="off" autocapitalize="characters"
    spellcheck="false" placeholder="XXXX-XXXX"`,
    submit: 'Continue',
    nav: ctx.nav,
  });
}

function confirmPage(ctx: PageContext, pending: PendingDevice, ownerName: string): Html {
  const { app } = pending;
  return layout(
    `Authorize ${app.name}`,
    html`<section class="card narrow consent">
      <h1>Authorize <strong>${app.name}</strong> on a device?</h1>
      <p>
        An application called <strong>${app.name}</strong> (registered by ${ownerName}) is
        requesting access to your pulsegate account <strong>${ctx.user.username}</strong> from a
        device showing the code <code id="user-code">${pending.userCode}</code>.
      </p>
      <p>It will be able to:</p>
      ${scopeList(pending.scopes)}
      <p class="flash error" role="alert">
        Only approve if you started this yourself, on a device you own, and it shows this code.
        Nobody from pulsegate will ever ask you for it.
      </p>
      <form method="post" action="${CONFIRM_PATH}">
        ${csrfField(ctx.csrf)}
        <input type="hidden" name="user_code" value="${pending.userCode}" />
        ${DECISION_BUTTONS}
      </form>
    </section>`,
    ctx.nav,
  );
}

function resultPage(ctx: PageContext, approved: boolean, appName: string): Html {
  const title = approved ? 'Device authorized' : 'Request denied';
  return layout(
    title,
    html`<section class="card narrow">
      <h1 id="device-result">${title}</h1>
      <p>
        ${
          approved
            ? html`<strong>${appName}</strong> can now use your account. You can return to your
                device.`
            : html`<strong>${appName}</strong> was not given access.`
        }
      </p>
    </section>`,
    ctx.nav,
  );
}

export function deviceRoutes(app: FastifyInstance, services: Services): void {
  const { device } = services.oauth;
  const source = (ctx: PageContext, request: FastifyRequest): GuessSource => ({
    sessionId: ctx.session.rowId,
    userId: ctx.user.id,
    address: request.ip,
  });

  /** Runs a code check; a throttled source gets 429 with Retry-After and the form again. */
  const guarded = async (
    reply: FastifyReply,
    ctx: PageContext,
    userCode: string,
    check: () => Promise<FastifyReply>,
  ) => {
    try {
      return await check();
    } catch (error) {
      if (!(error instanceof ThrottledError)) throw error;
      reply.header('retry-after', String(error.retryAfter));
      return sendHtml(reply, 429, codeForm(ctx, userCode, [error.message]));
    }
  };

  app.get(
    DEVICE_PATH,
    forUser(services, async (ctx, request, reply) => {
      const query = request.query as Record<string, unknown>;
      const prefill = typeof query.user_code === 'string' ? query.user_code.slice(0, 32) : '';
      return sendHtml(reply, 200, codeForm(ctx, prefill, []));
    }),
  );

  app.post(
    DEVICE_PATH,
    forUser(services, async (ctx, request, reply) => {
      const userCode = formValue(request.body, 'user_code') ?? '';
      return guarded(reply, ctx, userCode, async () => {
        const pending = await device.lookup(userCode, source(ctx, request));
        if (!pending) return sendHtml(reply, 422, codeForm(ctx, userCode, [INVALID_USER_CODE]));
        const owner = await services.oauth.accounts.username(pending.app.ownerId);
        return sendHtml(reply, 200, confirmPage(ctx, pending, owner ?? 'unknown'));
      });
    }),
  );

  app.post(
    CONFIRM_PATH,
    forUser(services, async (ctx, request, reply) => {
      const userCode = formValue(request.body, 'user_code') ?? '';
      const approve = formValue(request.body, 'decision') === 'approve';
      return guarded(reply, ctx, userCode, async () => {
        const decided = await device.decide(userCode, source(ctx, request), {
          approve,
          authTime: ctx.session.signedInAt,
        });
        if (!decided) return sendHtml(reply, 422, codeForm(ctx, '', [INVALID_USER_CODE]));
        return sendHtml(reply, 200, resultPage(ctx, approve, decided.app.name));
      });
    }),
  );
}
