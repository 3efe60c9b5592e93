/**
 * `/<project path>/-/hooks` (GitLab: Settings → Webhooks): the project's hooks, what they receive,
 * whether they are disabled, and their newest deliveries with the answer each got, each with a
 * "Resend" button. Maintainers only; hooks are added and edited through the API.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isServiceError } from '../domain/errors.js';
import { HOOK_TRIGGERS } from '../domain/webhook-triggers.js';
import { UNDELIVERED_RETENTION_MS } from '../domain/webhook-failures.js';
import { viewerOf } from '../domain/visibility.js';
import type { Services } from '../services/container.js';
import type { Actor } from '../services/content/context.js';
import type { DeliveryView, HookView } from '../services/webhooks/views.js';
import type { ProjectWebhooks } from '../services/webhooks/webhooks.js';
import { type PageContext, requireUser } from './guard.js';
import { type Html, csrfField, errorPage, html, layout, messages, sendHtml } from './html.js';
import { type StackColumn, stackTable } from './stack-table.js';

/** Project paths have 2 to 4 segments (namespace, subgroups, project). */
const PREFIXES = ['/:p1/:p2', '/:p1/:p2/:p3', '/:p1/:p2/:p3/:p4'];

type Params = Record<string, string | undefined>;

function projectPath(params: Params): string {
  return ['p1', 'p2', 'p3', 'p4']
    .map((k) => params[k])
    .filter((v): v is string => v !== undefined)
    .join('/');
}

function time(ms: number | null): string {
  return ms === null
    ? ''
    : new Date(ms)
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d{3}Z$/, ' UTC');
}

const STATUS_TEXT: Record<HookView['alertStatus'], string> = {
  executable: 'Active',
  temporarily_disabled: 'Temporarily disabled',
  disabled: `Disabled after too many failures: its undelivered deliveries wait, and go out if the hook is saved again (PUT …/hooks/:hook_id) within ${UNDELIVERED_RETENTION_MS / 86_400_000} days of their event`,
};

function answer(d: DeliveryView): string {
  if (d.responseStatus !== null) return String(d.responseStatus);
  if (d.error) return d.error;
  return d.status === 'pending' ? 'Not sent yet' : '';
}

function waiting(hook: HookView, d: DeliveryView): string {
  if (d.status !== 'pending') return d.status;
  if (hook.alertStatus === 'executable') return 'pending';
  return 'pending: waits for the hook';
}

function deliveryRows(
  base: string,
  hook: HookView,
  deliveries: DeliveryView[],
  csrf: string,
): Html {
  if (deliveries.length === 0) return html`<p class="muted">No deliveries yet.</p>`;
  const columns: StackColumn<DeliveryView>[] = [
    { label: 'Created', cell: (d) => time(d.createdAt) },
    { label: 'Event', cell: (d) => `${d.eventHeader}${d.test ? ' (test)' : ''}` },
    { label: 'Status', cell: (d) => waiting(hook, d) },
    {
      label: 'Answer',
      cell: (d) =>
        html`${answer(d)}
        ${d.responseBody ? html`<pre class="excerpt">${d.responseBody.slice(0, 500)}</pre>` : ''}`,
    },
    { label: 'Attempts', cell: (d) => String(d.attempts) },
    { label: 'Duration', cell: (d) => (d.durationMs === null ? '' : `${d.durationMs} ms`) },
  ];
  return stackTable(
    columns,
    deliveries,
    (d) =>
      html`<form method="post" action="${base}/${hook.id}/hook_logs/${d.id}/retry" class="inline">
        ${csrfField(csrf)}
        <button type="submit" aria-label="Resend delivery ${d.id}">Resend</button>
      </form>`,
  );
}

function hooksPage(ctx: PageContext, data: ProjectWebhooks, notice: string | null): Html {
  const base = `/${data.project.fullPath}/-/hooks`;
  return layout(
    `Webhooks · ${data.project.fullPath}`,
    html`${notice ? messages([notice], 'notice') : ''}
      <section class="card">
        <h1>Webhooks of ${data.project.fullPath}</h1>
        <p class="muted">
          Add and change hooks with the API (<code
            >POST /api/v4/projects/${String(data.project.id)}/hooks</code
          >).
        </p>
        ${data.hooks.length === 0 ? html`<p>No webhooks.</p>` : ''}
      </section>
      ${data.hooks.map(
        ({ hook, deliveries }) =>
          html`<section class="card">
            <h2><code>${hook.url}</code></h2>
            <p>
              ${STATUS_TEXT[hook.alertStatus]}${
                hook.disabledUntil !== null ? ` until ${time(hook.disabledUntil)}` : ''
              }
              · ${HOOK_TRIGGERS.filter((t) => hook.triggers[t]).join(', ') || 'no events'}
              ${hook.enableSslVerification ? '' : ' · SSL verification off'}
            </p>
            <h3>Recent deliveries</h3>
            ${deliveryRows(base, hook, deliveries, ctx.csrf)}
          </section>`,
      )}`,
    ctx.nav,
  );
}

function actorOf(ctx: PageContext): Actor {
  return { user: ctx.user, viewer: viewerOf(ctx.user) };
}

export function hookPages(app: FastifyInstance, services: Services): void {
  const { webhooks } = services;

  /** Runs `work`; a project the user may not administer is a plain 404 page (never a 403). */
  async function guarded(
    request: FastifyRequest,
    reply: FastifyReply,
    work: (ctx: PageContext) => Promise<FastifyReply>,
  ): Promise<FastifyReply> {
    const ctx = await requireUser(services, request, reply);
    if (!ctx) return reply;
    try {
      return await work(ctx);
    } catch (error) {
      if (isServiceError(error) && (error.status === 403 || error.status === 404)) {
        return sendHtml(reply, 404, errorPage('Not found', 'No such project or webhook.', ctx.nav));
      }
      throw error;
    }
  }

  for (const prefix of PREFIXES) {
    app.get(`${prefix}/-/hooks`, (request, reply) =>
      guarded(request, reply, async (ctx) => {
        const path = projectPath(request.params as Params);
        const data = await webhooks.overview(actorOf(ctx), path);
        const resent = (request.query as { done?: string }).done === 'resent';
        return sendHtml(
          reply,
          200,
          hooksPage(ctx, data, resent ? 'The delivery was queued again.' : null),
        );
      }),
    );

    app.post(`${prefix}/-/hooks/:hook_id/hook_logs/:log_id/retry`, (request, reply) =>
      guarded(request, reply, async (ctx) => {
        const params = request.params as Params;
        const path = projectPath(params);
        const hookId = /^\d{1,15}$/.test(params.hook_id ?? '') ? Number(params.hook_id) : NaN;
        const logId = /^\d{1,15}$/.test(params.log_id ?? '') ? Number(params.log_id) : NaN;
        await webhooks.resend(actorOf(ctx), path, hookId, logId);
        return reply.redirect(`/${path}/-/hooks?done=resent`, 303);
      }),
    );
  }
}
