/** `/profile/applications`: register OAuth applications, renew secrets, delete. */
import type { FastifyInstance } from 'fastify';
import { ValidationError } from '../domain/errors.js';
import { DEFAULT_ID_TOKEN_ALG, ID_TOKEN_ALGS } from '../domain/oidc.js';
import { SCOPES } from '../domain/scopes.js';
import type { Services } from '../services/container.js';
import type { ApplicationView } from '../services/views.js';
import { type PageContext, forUser } from './guard.js';
import {
  type Html,
  breakableUrl,
  copyButton,
  csrfField,
  errorPage,
  html,
  layout,
  messages,
  sendHtml,
} from './html.js';
import { type Confirmation, confirmationRoute } from './confirmation.js';
import { pathId } from './path-id.js';
import { scopeChoices } from './scope-choices.js';
import { formValue, formValues } from './session.js';
import { type StackColumn, stackTable } from './stack-table.js';

interface FormState {
  name: string;
  redirectUris: string;
  scopes: readonly string[];
  confidential: boolean;
  /** How OpenID Connect ID tokens are signed for this application. */
  idTokenSignedResponseAlg: string;
}

const APPS = '/profile/applications';

const EMPTY: FormState = {
  name: '',
  redirectUris: '',
  scopes: ['api'],
  confidential: true,
  idTokenSignedResponseAlg: DEFAULT_ID_TOKEN_ALG,
};

const APP_COLUMNS: readonly StackColumn<ApplicationView>[] = [
  { label: 'Name', cell: (app) => app.name },
  { label: 'Application ID', cell: (app) => html`<code class="app-id">${app.uid}</code>` },
  { label: 'Callback URLs', cell: (app) => callbackUrls(app) },
  { label: 'Scopes', cell: (app) => app.scopes.join(' ') },
  { label: 'Type', cell: (app) => (app.confidential ? 'Confidential' : 'Public') },
];

function appActions(app: ApplicationView): Html {
  return html`<a class="button secondary" href="${APPS}/${app.id}/renew_secret">Renew secret</a>
    <a class="button danger" href="${APPS}/${app.id}/delete">Delete</a>`;
}

function callbackUrls(app: ApplicationView): Html[] {
  return app.redirectUris.map((u) => html`<div><code>${breakableUrl(u)}</code></div>`);
}

function listPage(
  ctx: PageContext,
  apps: ApplicationView[],
  form: FormState,
  errors: string[],
  notice: string | null = null,
): Html {
  return layout(
    'Applications',
    html`${notice ? messages([notice], 'notice') : ''}
      <section class="card">
        <h1>Applications</h1>
        <p>
          Register an application to let it use pulsegate's OAuth 2.0 provider on behalf of users.
        </p>
        ${
          apps.length === 0
            ? html`<p class="muted">You have no applications yet.</p>`
            : stackTable(APP_COLUMNS, apps, appActions)
        }
      </section>
      <section class="card">
        <h2>Add new application</h2>
        ${messages(errors)}
        <form method="post" action="/profile/applications">
          ${csrfField(ctx.csrf)}
          <label>Name <input name="name" value="${form.name}" required /></label>
          <label
            >Redirect URI
            <span class="muted">(one per line; https, or http on a loopback address)</span>
            <textarea name="redirect_uri" rows="3" required>${form.redirectUris}</textarea>
          </label>
          <label class="check"
            ><input
              type="checkbox"
              name="confidential"
              value="1"
              ${form.confidential ? html`checked` : ''}
            />
            Confidential — the application can keep its secret (a server, not a browser or mobile
            app)</label
          >
          ${scopeChoices(SCOPES, form.scopes)}
          <label
            >ID token signature <span class="muted">(OpenID Connect, with the openid scope)</span>
            <select name="id_token_signed_response_alg">
              ${ID_TOKEN_ALGS.map(
                (alg) =>
                  html`<option
                    value="${alg}"
                    ${form.idTokenSignedResponseAlg === alg ? html`selected` : ''}
                  >
                    ${alg}
                  </option>`,
              )}
            </select>
          </label>
          <button type="submit" class="primary">Save application</button>
        </form>
      </section>`,
    ctx.nav,
    { wide: true },
  );
}

function secretPage(
  ctx: PageContext,
  app: ApplicationView,
  secret: string,
  created: boolean,
): Html {
  return layout(
    `Application: ${app.name}`,
    html`<section class="card">
      <h1>${created ? 'Application created' : 'Secret renewed'}: ${app.name}</h1>
      <p class="flash notice">
        Copy the secret now. It is shown only once and cannot be retrieved later.
      </p>
      <dl class="credentials">
        <dt>Application ID</dt>
        <dd class="secret">
          <code id="application-id">${app.uid}</code> ${copyButton('application-id', 'ID')}
        </dd>
        <dt>Secret</dt>
        <dd class="secret">
          <code id="application-secret">${secret}</code>
          ${copyButton('application-secret', 'secret')}
        </dd>
        <dt>Callback URLs</dt>
        <dd>${callbackUrls(app)}</dd>
        <dt>Scopes</dt>
        <dd>${app.scopes.join(' ')}</dd>
        <dt>Confidential</dt>
        <dd>${app.confidential ? 'Yes' : 'No'}</dd>
        <dt>ID token signature</dt>
        <dd id="id-token-alg">${app.idTokenAlg}</dd>
      </dl>
      <p><a href="/profile/applications">Back to applications</a></p>
    </section>`,
    ctx.nav,
  );
}

export function applicationRoutes(app: FastifyInstance, services: Services): void {
  const { applications } = services.oauth;

  app.get(
    '/profile/applications',
    forUser(services, async (ctx, request, reply) => {
      const deleted = (request.query as { done?: string }).done === 'deleted';
      const notice = deleted ? 'The application was deleted and its tokens revoked.' : null;
      const apps = await applications.list(ctx.user.id);
      return sendHtml(reply, 200, listPage(ctx, apps, EMPTY, [], notice));
    }),
  );

  /** The confirmation steps: a page that asks, whose form does the work. */
  const confirmations = {
    renew_secret: {
      title: 'Renew secret',
      question: (name: string) => html`Renew the secret of <strong>${name}</strong>?`,
      consequence:
        'The current secret stops working at once: the application needs the new one to get tokens. Tokens already issued keep working.',
      button: 'Renew secret',
    },
    delete: {
      title: 'Delete application',
      question: (name: string) => html`Delete the application <strong>${name}</strong>?`,
      consequence:
        'Every token issued to it is revoked and its users must authorize it again. This cannot be undone.',
      button: 'Delete application',
    },
  } satisfies Record<string, Confirmation>;
  for (const [action, text] of Object.entries(confirmations)) {
    confirmationRoute(app, services, {
      base: APPS,
      action,
      missing: 'application',
      find: async (userId, id) => (await applications.list(userId)).find((a) => a.id === id),
      text,
    });
  }

  app.post(
    '/profile/applications',
    forUser(services, async (ctx, request, reply) => {
      const form: FormState = {
        name: formValue(request.body, 'name') ?? '',
        redirectUris: formValue(request.body, 'redirect_uri') ?? '',
        scopes: formValues(request.body, 'scopes'),
        confidential: formValue(request.body, 'confidential') === '1',
        idTokenSignedResponseAlg:
          formValue(request.body, 'id_token_signed_response_alg') ?? DEFAULT_ID_TOKEN_ALG,
      };
      try {
        const { app: created, secret } = await applications.create(ctx.user.id, form);
        return sendHtml(reply, 201, secretPage(ctx, created, secret, true));
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        const apps = await applications.list(ctx.user.id);
        return sendHtml(reply, 422, listPage(ctx, apps, form, error.messages));
      }
    }),
  );

  app.post(
    '/profile/applications/:id/renew_secret',
    forUser(services, async (ctx, request, reply) => {
      const id = pathId(request.params);
      const secret = id === null ? null : await applications.renewSecret(ctx.user.id, id);
      const row = id === null ? undefined : await applications.byId(id);
      if (secret === null || !row) {
        return sendHtml(reply, 404, errorPage('Not found', 'No such application.', ctx.nav));
      }
      return sendHtml(reply, 200, secretPage(ctx, row, secret, false));
    }),
  );

  app.post(
    '/profile/applications/:id/delete',
    forUser(services, async (ctx, request, reply) => {
      const id = pathId(request.params);
      if (id === null || !(await applications.delete(ctx.user.id, id))) {
        return sendHtml(reply, 404, errorPage('Not found', 'No such application.', ctx.nav));
      }
      return reply.redirect(`${APPS}?done=deleted`, 303);
    }),
  );
}
