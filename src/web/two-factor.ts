/** `/profile/two_factor_auth`: enrol a TOTP app (secret as text and QR), confirm, disable. */
import type { FastifyInstance } from 'fastify';
import type { Services } from '../services/container.js';
import { type PageContext, forUser } from './guard.js';
import { type Html, csrfField, html, layout, messages, sendHtml, trusted } from './html.js';
import { formValue } from './session.js';

function enabledPage(ctx: PageContext, recoveryCodes: string[] | null, errors: string[]): Html {
  return layout(
    'Two-factor authentication',
    html`<section class="card">
      <h1>Two-factor authentication is enabled</h1>
      ${
        recoveryCodes
          ? html`<p class="flash notice">
                Save these recovery codes somewhere safe. Each works once, and they are shown only
                now.
              </p>
              <ul class="codes" id="recovery-codes">
                ${recoveryCodes.map((c) => html`<li><code>${c}</code></li>`)}
              </ul>`
          : ''
      }
      <h2>Disable</h2>
      ${messages(errors)}
      <form method="post" action="/profile/two_factor_auth/disable">
        ${csrfField(ctx.csrf)}
        <label>Current password <input type="password" name="current_password" required /></label>
        <button type="submit" class="danger">Disable two-factor authentication</button>
      </form>
    </section>`,
    ctx.nav,
  );
}

function enrolPage(
  ctx: PageContext,
  enrolment: { secret: string; qrSvg: string },
  errors: string[],
): Html {
  return layout(
    'Two-factor authentication',
    html`<section class="card">
      <h1>Enable two-factor authentication</h1>
      <p>Scan this QR code with an authenticator app, or enter the key by hand.</p>
      <div class="qr">${trusted(enrolment.qrSvg)}</div>
      <p>Key: <code id="otp-secret">${enrolment.secret}</code></p>
      ${messages(errors)}
      <form method="post" action="/profile/two_factor_auth">
        ${csrfField(ctx.csrf)}
        <label
          >Code from the app
          <input name="pin_code" inputmode="numeric" autocomplete="one-time-code" required
        /></label>
        <button type="submit" class="primary">Register with two-factor app</button>
      </form>
    </section>`,
    ctx.nav,
  );
}

export function twoFactorRoutes(app: FastifyInstance, services: Services): void {
  const { twoFactor } = services.oauth;

  app.get(
    '/profile/two_factor_auth',
    forUser(services, async (ctx, request, reply) => {
      if (ctx.user.twoFactorEnabled) return sendHtml(reply, 200, enabledPage(ctx, null, []));
      return sendHtml(reply, 200, enrolPage(ctx, await twoFactor.enrolment(ctx.user.id), []));
    }),
  );

  app.post(
    '/profile/two_factor_auth',
    forUser(services, async (ctx, request, reply) => {
      if (ctx.user.twoFactorEnabled) return reply.redirect('/profile/two_factor_auth', 303);
      const codes = await twoFactor.enable(ctx.user.id, formValue(request.body, 'pin_code') ?? '');
      if (!codes) {
        const enrolment = await twoFactor.enrolment(ctx.user.id);
        return sendHtml(reply, 422, enrolPage(ctx, enrolment, ['Invalid code. Try again.']));
      }
      return sendHtml(reply, 200, enabledPage(ctx, codes, []));
    }),
  );

  app.post(
    '/profile/two_factor_auth/disable',
    forUser(services, async (ctx, request, reply) => {
      const password = formValue(request.body, 'current_password') ?? '';
      if (!(await twoFactor.disable(ctx.user.id, password))) {
        return sendHtml(reply, 422, enabledPage(ctx, null, ['Invalid password.']));
      }
      return reply.redirect('/profile/two_factor_auth', 303);
    }),
  );
}
