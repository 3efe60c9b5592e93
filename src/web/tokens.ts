/** `/profile/personal_access_tokens`: create (token shown once), list, revoke. */
import type { FastifyInstance } from 'fastify';
import { ValidationError } from '../domain/errors.js';
import { API_SCOPES } from '../domain/scopes.js';
import type { Services } from '../services/container.js';
import { expiryInstant } from '../services/accounts/credentials.js';
import type { PersonalTokenView } from '../services/views.js';
import { type PageContext, requireUser } from './guard.js';
import { type Html, csrfField, errorPage, html, layout, messages, sendHtml } from './html.js';
import { formValue, formValues } from './session.js';

function status(row: PersonalTokenView, now: number): string {
  if (row.revoked) return 'Revoked';
  const expiry = expiryInstant(row.expiresAt);
  return expiry !== null && now >= expiry ? 'Expired' : 'Active';
}

function tokensPage(
  ctx: PageContext,
  rows: PersonalTokenView[],
  now: number,
  created: string | null,
  errors: string[],
): Html {
  return layout(
    'Personal access tokens',
    html`${
        created
          ? html`<section class="card">
              <h2>Your new personal access token</h2>
              <p class="flash notice">Copy it now. It is shown only once.</p>
              <p><code id="created-token">${created}</code></p>
            </section>`
          : ''
      }
      <section class="card">
        <h1>Personal access tokens</h1>
        ${messages(errors)}
        <form method="post" action="/profile/personal_access_tokens">
          ${csrfField(ctx.csrf)}
          <label>Token name <input name="name" required /></label>
          <label
            >Expiration date <span class="muted">(optional, YYYY-MM-DD)</span>
            <input type="date" name="expires_at"
          /></label>
          <fieldset>
            <legend>Scopes</legend>
            ${API_SCOPES.map(
              (s) =>
                html`<label class="check"
                  ><input type="checkbox" name="scopes" value="${s}" /> <code>${s}</code></label
                >`,
            )}
          </fieldset>
          <button type="submit" class="primary">Create personal access token</button>
        </form>
      </section>
      <section class="card">
        <h2>Tokens</h2>
        ${
          rows.length === 0
            ? html`<p class="muted">No tokens.</p>`
            : html`<table class="list">
                <thead>
                  <tr>
                    <th>Name</th>
                    <th>Scopes</th>
                    <th>Created</th>
                    <th>Expires</th>
                    <th>Status</th>
                    <th></th>
                  </tr>
                </thead>
                <tbody>
                  ${rows.map(
                    (row) =>
                      html`<tr>
                        <td>${row.name}</td>
                        <td>${row.scopes.join(' ')}</td>
                        <td>${new Date(row.createdAt).toISOString().slice(0, 10)}</td>
                        <td>${row.expiresAt ?? 'Never'}</td>
                        <td>${status(row, now)}</td>
                        <td>
                          ${
                            row.revoked
                              ? ''
                              : html`<form
                                  method="post"
                                  action="/profile/personal_access_tokens/${row.id}/revoke"
                                >
                                  ${csrfField(ctx.csrf)}<button type="submit" class="danger">
                                    Revoke
                                  </button>
                                </form>`
                          }
                        </td>
                      </tr>`,
                  )}
                </tbody>
              </table>`
        }
      </section>`,
    ctx.nav,
  );
}

export function tokenRoutes(app: FastifyInstance, services: Services): void {
  const { accounts } = services.oauth;
  const now = () => services.clock.now();

  app.get('/profile/personal_access_tokens', async (request, reply) => {
    const ctx = await requireUser(services, request, reply);
    if (!ctx) return reply;
    const rows = await accounts.listTokens(ctx.user.id);
    return sendHtml(reply, 200, tokensPage(ctx, rows, now(), null, []));
  });

  app.post('/profile/personal_access_tokens', async (request, reply) => {
    const ctx = await requireUser(services, request, reply);
    if (!ctx) return reply;
    try {
      const { token } = await accounts.createToken(ctx.user.id, {
        name: formValue(request.body, 'name') ?? '',
        scopes: formValues(request.body, 'scopes'),
        expiresAt: formValue(request.body, 'expires_at') ?? '',
      });
      const rows = await accounts.listTokens(ctx.user.id);
      return sendHtml(reply, 201, tokensPage(ctx, rows, now(), token, []));
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      const rows = await accounts.listTokens(ctx.user.id);
      return sendHtml(reply, 422, tokensPage(ctx, rows, now(), null, error.messages));
    }
  });

  app.post('/profile/personal_access_tokens/:id/revoke', async (request, reply) => {
    const ctx = await requireUser(services, request, reply);
    if (!ctx) return reply;
    const raw = (request.params as { id?: string }).id ?? '';
    const ok = /^\d{1,9}$/.test(raw) && (await accounts.revokeToken(ctx.user.id, Number(raw)));
    if (!ok) return sendHtml(reply, 404, errorPage('Not found', 'No such token.', ctx.nav));
    return reply.redirect('/profile/personal_access_tokens', 303);
  });
}
