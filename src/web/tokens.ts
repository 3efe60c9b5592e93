/** `/profile/personal_access_tokens`: create (token shown once), list, revoke after confirming. */
import type { FastifyInstance } from 'fastify';
import { ValidationError } from '../domain/errors.js';
import { PERSONAL_TOKEN_SCOPES } from '../domain/scopes.js';
import type { Services } from '../services/container.js';
import { expiryInstant } from '../services/accounts/credentials.js';
import type { PersonalTokenView } from '../services/views.js';
import { type PageContext, forUser } from './guard.js';
import {
  type Html,
  copyButton,
  csrfField,
  errorPage,
  html,
  layout,
  messages,
  sendHtml,
} from './html.js';
import { confirmationRoute } from './confirmation.js';
import { pathId } from './path-id.js';
import { scopeChoices } from './scope-choices.js';
import { formValue, formValues } from './session.js';
import { type StackColumn, stackTable } from './stack-table.js';

const TOKENS = '/profile/personal_access_tokens';

interface TokenForm {
  name: string;
  scopes: readonly string[];
  expiresAt: string;
}

const EMPTY: TokenForm = { name: '', scopes: [], expiresAt: '' };

function status(row: PersonalTokenView, now: number): string {
  if (row.revoked) return 'Revoked';
  const expiry = expiryInstant(row.expiresAt);
  return expiry !== null && now >= expiry ? 'Expired' : 'Active';
}

function day(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function tokenColumns(now: number): StackColumn<PersonalTokenView>[] {
  return [
    { label: 'Name', cell: (row) => row.name },
    { label: 'Scopes', cell: (row) => row.scopes.join(' ') },
    { label: 'Created', cell: (row) => day(row.createdAt) },
    {
      label: 'Last used',
      cell: (row) => (row.lastUsedAt === null ? 'Never' : day(row.lastUsedAt)),
    },
    { label: 'Expires', cell: (row) => row.expiresAt ?? 'Never' },
    { label: 'Status', cell: (row) => status(row, now) },
  ];
}

function tokenActions(row: PersonalTokenView): Html | '' {
  if (row.revoked) return '';
  return html`<a
    class="button danger"
    href="${TOKENS}/${row.id}/revoke"
    aria-label="Revoke ${row.name}"
    >Revoke</a
  >`;
}

function tokensPage(
  ctx: PageContext,
  rows: PersonalTokenView[],
  now: number,
  created: string | null,
  form: TokenForm,
  errors: string[],
  notice: string | null = null,
): Html {
  return layout(
    'Personal access tokens',
    html`${notice ? html`${messages([notice], 'notice')}` : ''}
      ${
        created
          ? html`<section class="card">
              <h2>Your new personal access token</h2>
              <p class="flash notice">Copy it now. It is shown only once.</p>
              <p class="secret">
                <code id="created-token">${created}</code> ${copyButton('created-token', 'token')}
              </p>
            </section>`
          : ''
      }
      <section class="card">
        <h1>Personal access tokens</h1>
        ${messages(errors)}
        <form method="post" action="${TOKENS}">
          ${csrfField(ctx.csrf)}
          <label>Token name <input name="name" value="${form.name}" required /></label>
          <label
            >Expiration date
            <span class="muted">(optional; the token stops working when this day starts, UTC)</span>
            <input type="date" name="expires_at" value="${form.expiresAt}"
          /></label>
          ${scopeChoices(PERSONAL_TOKEN_SCOPES, form.scopes)}
          <button type="submit" class="primary">Create personal access token</button>
        </form>
      </section>
      <section class="card">
        <h2>Tokens</h2>
        ${
          rows.length === 0
            ? html`<p class="muted">No tokens.</p>`
            : stackTable(tokenColumns(now), rows, tokenActions)
        }
      </section>`,
    ctx.nav,
  );
}

export function tokenRoutes(app: FastifyInstance, services: Services): void {
  const { accounts } = services.oauth;
  const now = () => services.clock.now();

  app.get(
    TOKENS,
    forUser(services, async (ctx, request, reply) => {
      const rows = await accounts.listTokens(ctx.user.id);
      const revoked = (request.query as { done?: string }).done === 'revoked';
      const notice = revoked ? 'The token was revoked. It no longer works.' : null;
      return sendHtml(reply, 200, tokensPage(ctx, rows, now(), null, EMPTY, [], notice));
    }),
  );

  app.post(
    TOKENS,
    forUser(services, async (ctx, request, reply) => {
      const form: TokenForm = {
        name: formValue(request.body, 'name') ?? '',
        scopes: formValues(request.body, 'scopes'),
        expiresAt: formValue(request.body, 'expires_at') ?? '',
      };
      try {
        const { token } = await accounts.createToken(ctx.user.id, form);
        const rows = await accounts.listTokens(ctx.user.id);
        return sendHtml(reply, 201, tokensPage(ctx, rows, now(), token, EMPTY, []));
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        const rows = await accounts.listTokens(ctx.user.id);
        return sendHtml(reply, 422, tokensPage(ctx, rows, now(), null, form, error.messages));
      }
    }),
  );

  confirmationRoute(app, services, {
    base: TOKENS,
    action: 'revoke',
    missing: 'token',
    find: async (userId, id) =>
      (await accounts.listTokens(userId)).find((r) => r.id === id && !r.revoked),
    text: {
      title: 'Revoke token',
      question: (name) => html`Revoke the token <strong>${name}</strong>?`,
      consequence:
        'Anything still using it stops working at once. This cannot be undone: make a new token instead.',
      button: 'Revoke token',
    },
  });

  app.post(
    `${TOKENS}/:id/revoke`,
    forUser(services, async (ctx, request, reply) => {
      const id = pathId(request.params);
      const ok = id !== null && (await accounts.revokeToken(ctx.user.id, id));
      if (!ok) return sendHtml(reply, 404, errorPage('Not found', 'No such token.', ctx.nav));
      return reply.redirect(`${TOKENS}?done=revoked`, 303);
    }),
  );
}
