/**
 * The pages behind the links the API, the feeds and the activity pages emit under a project's
 * `/-/` (GitLab's scheme), and a group's page at `/groups/<path>`. Every read is the call the
 * REST routes make (content ops, the navigation service) or the activity service's, for the same
 * viewer: what the API hides is not found here too.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { projectDisplayName } from '../domain/event-wording.js';
import { viewerOf } from '../domain/visibility.js';
import type { Services } from '../services/container.js';
import type { PageContext } from './guard.js';
import { html, layout, sendHtml } from './html.js';
import { avatarImageSources } from './identicon.js';
import { type Here, found, objectPageSender } from './object-page.js';
import { projectHref } from './object-templates.js';
import { pushPages } from './push-pages.js';
import { trackedPages } from './tracked-pages.js';

type Context = (request: FastifyRequest) => Promise<PageContext | null>;

export function projectSubpages(services: Services, context: Context) {
  const send = objectPageSender(services);
  const tracked = trackedPages(services, send);
  const { commitPage, comparePage, refPage } = pushPages(services, send);

  async function projectSubpage(
    request: FastifyRequest,
    reply: FastifyReply,
    projectPath: string,
    rest: string[],
  ): Promise<FastifyReply | null> {
    const ctx = await context(request);
    const viewer = ctx ? viewerOf(ctx.user) : null;
    const resolved = await found(services.activity.findProject(projectPath, viewer));
    if (!resolved) return null;
    const here: Here = {
      ctx,
      viewer,
      resolved,
      path: resolved.project.fullPath,
      ops: services.content.reading(ctx && viewer ? { user: ctx.user, viewer } : null),
      frame: { project: resolved.project, now: services.clock.now(), avatars: services.config },
    };
    const [kind, arg, ...more] = rest;
    const query = request.query as Record<string, string | undefined>;
    if (more.length > 0 || kind === undefined) return null;
    switch (kind) {
      case 'issues':
        return arg === undefined
          ? tracked.issueList(reply, here, query)
          : tracked.issuePage(reply, here, arg);
      case 'merge_requests':
        return arg === undefined
          ? tracked.mergeRequestList(reply, here, query)
          : tracked.mergeRequestPage(reply, here, arg);
      case 'milestones':
        return arg === undefined
          ? tracked.milestoneList(reply, here, query)
          : tracked.milestonePage(reply, here, arg);
      case 'snippets':
        return arg === undefined ? null : tracked.snippetPage(reply, here, arg);
      case 'commit':
        return arg === undefined ? null : commitPage(reply, here, arg);
      case 'compare':
        return arg === undefined ? null : comparePage(reply, here, arg);
      case 'commits':
        return arg === undefined ? null : refPage(reply, here, 'branch', arg);
      case 'branches':
        return arg === undefined ? refPage(reply, here, 'branch', null) : null;
      case 'tags':
        return refPage(reply, here, 'tag', arg ?? null);
      default:
        return null;
    }
  }

  async function groupPage(
    request: FastifyRequest,
    reply: FastifyReply,
    groupPath: string,
  ): Promise<FastifyReply | null> {
    const ctx = await context(request);
    const viewer = ctx ? viewerOf(ctx.user) : null;
    const group = await found(services.navigation.groups.get(groupPath, viewer));
    if (!group) return null;
    const listed = await services.navigation.groups.projectsOf(
      groupPath,
      true,
      { orderBy: 'path', sort: 'asc', keyset: false },
      viewer,
      { offset: 0, limit: 100 },
      ctx?.user,
    );
    const body = html`<section class="card object">
      <header class="page-header">
        <h1>${group.group.name}</h1>
        <p class="muted project-path">${projectDisplayName(group.group.fullPath)}</p>
      </header>
      <h2>Projects</h2>
      ${
        listed.items.length === 0
          ? html`<p class="muted">No projects you can see.</p>`
          : html`<ul class="objects">
              ${listed.items.map(
                (p) =>
                  html`<li>
                    <a href="${projectHref(p.project)}"
                      ><strong>${projectDisplayName(p.project.fullPath)}</strong></a
                    >
                    <p class="muted">${p.project.description || p.project.visibility}</p>
                  </li>`,
              )}
            </ul>`
      }
    </section>`;
    return sendHtml(
      reply,
      200,
      layout(group.group.fullPath, body, ctx?.nav ?? null),
      avatarImageSources(services.config),
    );
  }

  return { projectSubpage, groupPage };
}
