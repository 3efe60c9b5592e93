/**
 * The pages behind the links the API, the feeds and the activity pages emit under a project's
 * `/-/` (GitLab's scheme): issues, merge requests and milestones with their lists, a commit, a
 * compare range and a ref's pushes; and a group's page at `/groups/<path>`. Every read is the
 * call the REST routes make (content ops, the navigation service) or the activity service's,
 * for the same viewer: what the API hides is not found here too.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { NotFoundError } from '../domain/errors.js';
import { projectDisplayName } from '../domain/event-wording.js';
import { viewerOf } from '../domain/visibility.js';
import type { ResolvedProject } from '../services/activity/activity.js';
import type { PushMatch } from '../services/activity/object-activity.js';
import type { ContentOps } from '../services/content/ops.js';
import type { Services } from '../services/container.js';
import type { NoteableRef } from '../services/content/notes.js';
import type { PageContext } from './guard.js';
import { type Html, html, layout, sendHtml } from './html.js';
import { avatarImageSources } from './identicon.js';
import { timeTag } from './event-item.js';
import {
  type KeptCommit,
  type ListRow,
  type ObjectFrame,
  byline,
  commitList,
  eventsSection,
  listRows,
  markdownBody,
  notesSection,
  pager,
  projectBar,
  projectHref,
  stateBadge,
  stateTabs,
  userLink,
} from './object-templates.js';

/** Rows per list page, as GitLab's issue lists. */
const LIST_SIZE = 20;
const NOTES_SHOWN = 100;
const SHA = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;
const IID = /^[1-9]\d{0,9}$/;

/** A project page's request: who asks, and the project as they may read it. */
interface Here {
  ctx: PageContext | null;
  resolved: ResolvedProject;
  path: string;
  ops: ContentOps;
  frame: ObjectFrame;
}

type Context = (request: FastifyRequest) => Promise<PageContext | null>;

/** Null when not found (or not readable by this viewer). */
async function found<T>(lookup: Promise<T>): Promise<T | null> {
  try {
    return await lookup;
  } catch (error) {
    if (error instanceof NotFoundError) return null;
    throw error;
  }
}

export function projectSubpages(services: Services, context: Context) {
  const send = (reply: FastifyReply, here: Here, title: string, body: Html) =>
    sendHtml(
      reply,
      200,
      layout(`${title} · ${here.resolved.project.fullPath}`, body, here.ctx?.nav ?? null),
      avatarImageSources(services.config),
    );

  /** `/<project>/-/<rest…>`; null when no page is there for this viewer. */
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
        return arg === undefined ? issueList(reply, here, query) : issuePage(reply, here, arg);
      case 'merge_requests':
        return arg === undefined
          ? mergeRequestList(reply, here, query)
          : mergeRequestPage(reply, here, arg);
      case 'milestones':
        return arg === undefined
          ? milestoneList(reply, here, query)
          : milestonePage(reply, here, arg);
      case 'snippets':
        return arg === undefined ? null : snippetPage(reply, here, arg);
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

  function listPage(query: Record<string, string | undefined>, states: readonly string[]) {
    const state = states.includes(query.state ?? '') ? query.state! : states[0]!;
    const raw = query.page ?? '1';
    const page = /^[1-9]\d{0,5}$/.test(raw) ? Number(raw) : 1;
    return { state, page, offset: (page - 1) * LIST_SIZE, limit: LIST_SIZE };
  }

  async function issueList(
    reply: FastifyReply,
    here: Here,
    query: Record<string, string | undefined>,
  ) {
    const at = listPage(query, ['opened', 'closed', 'all']);
    const list = await here.ops.issues.list(here.path, {
      state: at.state === 'all' ? undefined : (at.state as 'opened' | 'closed'),
      sort: 'desc',
      offset: at.offset,
      limit: at.limit,
    });
    const base = projectHref(here.resolved.project, '/-/issues');
    const rows: ListRow[] = list.issues.map((d) => ({
      href: `${base}/${d.issue.iid}`,
      reference: `#${d.issue.iid}`,
      title: d.issue.title,
      state: d.issue.state,
      detail: html`opened ${timeTag(d.issue.createdAt, here.frame.now)} by
      ${d.author?.name ?? 'a deleted user'}`,
    }));
    const body = html`<section class="card object">
      ${projectBar(here.resolved.project, 'issues')}
      <h1>Issues</h1>
      ${stateTabs(
        base,
        [
          ['opened', 'Open'],
          ['closed', 'Closed'],
          ['all', 'All'],
        ],
        at.state,
      )}
      ${listRows(rows, 'No issues here.')}
      ${pager(base, at.state, at.page, at.offset + list.issues.length < list.total)}
    </section>`;
    return send(reply, here, 'Issues', body);
  }

  async function mergeRequestList(
    reply: FastifyReply,
    here: Here,
    query: Record<string, string | undefined>,
  ) {
    const at = listPage(query, ['opened', 'merged', 'closed', 'all']);
    const list = await here.ops.mergeRequests.list(here.path, {
      state: at.state === 'all' ? undefined : (at.state as 'opened' | 'closed' | 'merged'),
      sort: 'desc',
      offset: at.offset,
      limit: at.limit,
    });
    const base = projectHref(here.resolved.project, '/-/merge_requests');
    const rows: ListRow[] = list.mergeRequests.map((d) => ({
      href: `${base}/${d.mergeRequest.iid}`,
      reference: `!${d.mergeRequest.iid}`,
      title: d.mergeRequest.title,
      state: d.mergeRequest.state,
      detail: html`${
        d.mergeRequest.sourceBranch && d.mergeRequest.targetBranch
          ? `${d.mergeRequest.sourceBranch} → ${d.mergeRequest.targetBranch} · `
          : ''
      }opened
      ${timeTag(d.mergeRequest.createdAt, here.frame.now)} by ${d.author?.name ?? 'a deleted user'}`,
    }));
    const body = html`<section class="card object">
      ${projectBar(here.resolved.project, 'merge_requests')}
      <h1>Merge requests</h1>
      ${stateTabs(
        base,
        [
          ['opened', 'Open'],
          ['merged', 'Merged'],
          ['closed', 'Closed'],
          ['all', 'All'],
        ],
        at.state,
      )}
      ${listRows(rows, 'No merge requests here.')}
      ${pager(base, at.state, at.page, at.offset + list.mergeRequests.length < list.total)}
    </section>`;
    return send(reply, here, 'Merge requests', body);
  }

  async function milestoneList(
    reply: FastifyReply,
    here: Here,
    query: Record<string, string | undefined>,
  ) {
    const at = listPage(query, ['active', 'closed', 'all']);
    const list = await here.ops.milestones.list(here.path, {
      state: at.state === 'all' ? undefined : (at.state as 'active' | 'closed'),
      offset: at.offset,
      limit: at.limit,
    });
    const base = projectHref(here.resolved.project, '/-/milestones');
    const rows: ListRow[] = list.milestones.map((m) => ({
      href: `${base}/${m.iid}`,
      reference: `%${m.iid}`,
      title: m.title,
      state: m.state,
      detail: m.dueDate ? `due ${m.dueDate}` : 'no due date',
    }));
    const body = html`<section class="card object">
      ${projectBar(here.resolved.project, 'milestones')}
      <h1>Milestones</h1>
      ${stateTabs(
        base,
        [
          ['active', 'Open'],
          ['closed', 'Closed'],
          ['all', 'All'],
        ],
        at.state,
      )}
      ${listRows(rows, 'No milestones here.')}
      ${pager(base, at.state, at.page, at.offset + list.milestones.length < list.total)}
    </section>`;
    return send(reply, here, 'Milestones', body);
  }

  const notesOf = (here: Here, on: NoteableRef) =>
    here.ops.notes.list(here.path, on, { sort: 'asc', offset: 0, limit: NOTES_SHOWN });

  async function issuePage(reply: FastifyReply, here: Here, arg: string) {
    if (!IID.test(arg)) return null;
    const iid = Number(arg);
    const detail = await found(here.ops.issues.get(here.path, iid));
    if (!detail) return null;
    const { issue } = detail;
    const viewer = here.ctx ? viewerOf(here.ctx.user) : null;
    const [notes, events] = await Promise.all([
      notesOf(here, { type: 'Issue', iid }),
      services.objectActivity.ofTarget(here.resolved, { type: 'Issue', id: issue.id }, viewer),
    ]);
    const now = here.frame.now;
    const body = html`<article class="card object">
      ${projectBar(here.resolved.project, 'issues')}
      <header class="page-header">
        <h1>${issue.title} <span class="muted">#${issue.iid}</span></h1>
        ${byline([
          stateBadge(issue.state),
          issue.confidential ? html`<span class="state confidential">confidential</span>` : '',
          html`opened ${timeTag(issue.createdAt, now)} by ${userLink(detail.author)}`,
          issue.closedAt !== null
            ? html`closed
              ${timeTag(issue.closedAt, now)}${detail.closedBy ? html` by ${userLink(detail.closedBy)}` : ''}`
            : '',
          html`updated ${timeTag(issue.updatedAt, now)}`,
          detail.milestone
            ? html`milestone
                <a
                  href="${projectHref(here.resolved.project, `/-/milestones/${detail.milestone.iid}`)}"
                  >${detail.milestone.title}</a
                >`
            : '',
        ])}
      </header>
      ${markdownBody(issue.description, 'No description.')} ${notesSection(notes.notes, now)}
      ${eventsSection('Activity', events, here.frame, 'No activity recorded.')}
    </article>`;
    return send(reply, here, `${issue.title} (#${issue.iid})`, body);
  }

  async function mergeRequestPage(reply: FastifyReply, here: Here, arg: string) {
    if (!IID.test(arg)) return null;
    const iid = Number(arg);
    const detail = await found(here.ops.mergeRequests.get(here.path, iid));
    if (!detail) return null;
    const mr = detail.mergeRequest;
    const viewer = here.ctx ? viewerOf(here.ctx.user) : null;
    const [notes, events] = await Promise.all([
      notesOf(here, { type: 'MergeRequest', iid }),
      services.objectActivity.ofTarget(here.resolved, { type: 'MergeRequest', id: mr.id }, viewer),
    ]);
    const now = here.frame.now;
    const body = html`<article class="card object">
      ${projectBar(here.resolved.project, 'merge_requests')}
      <header class="page-header">
        <h1>${mr.title} <span class="muted">!${mr.iid}</span></h1>
        ${byline([
          stateBadge(mr.state),
          // Imported merge requests may carry no branch names.
          mr.sourceBranch && mr.targetBranch
            ? html`<code>${mr.sourceBranch}</code> → <code>${mr.targetBranch}</code>`
            : '',
          html`opened ${timeTag(mr.createdAt, now)} by ${userLink(detail.author)}`,
          mr.mergedAt !== null
            ? html`merged
              ${timeTag(mr.mergedAt, now)}${detail.mergedBy ? html` by ${userLink(detail.mergedBy)}` : ''}`
            : '',
          mr.closedAt !== null && mr.mergedAt === null
            ? html`closed
              ${timeTag(mr.closedAt, now)}${detail.closedBy ? html` by ${userLink(detail.closedBy)}` : ''}`
            : '',
          html`updated ${timeTag(mr.updatedAt, now)}`,
          detail.milestone
            ? html`milestone
                <a
                  href="${projectHref(here.resolved.project, `/-/milestones/${detail.milestone.iid}`)}"
                  >${detail.milestone.title}</a
                >`
            : '',
        ])}
      </header>
      ${markdownBody(mr.description, 'No description.')} ${notesSection(notes.notes, now)}
      ${eventsSection('Activity', events, here.frame, 'No activity recorded.')}
    </article>`;
    return send(reply, here, `${mr.title} (!${mr.iid})`, body);
  }

  async function milestonePage(reply: FastifyReply, here: Here, arg: string) {
    if (!IID.test(arg)) return null;
    const list = await here.ops.milestones.list(here.path, {
      iids: [Number(arg)],
      offset: 0,
      limit: 1,
    });
    const milestone = list.milestones[0];
    if (!milestone) return null;
    const viewer = here.ctx ? viewerOf(here.ctx.user) : null;
    const events = await services.objectActivity.ofTarget(
      here.resolved,
      { type: 'Milestone', id: milestone.id },
      viewer,
    );
    const now = here.frame.now;
    const body = html`<article class="card object">
      ${projectBar(here.resolved.project, 'milestones')}
      <header class="page-header">
        <h1>${milestone.title} <span class="muted">%${milestone.iid}</span></h1>
        ${byline([
          stateBadge(milestone.state),
          milestone.startDate ? `starts ${milestone.startDate}` : '',
          milestone.dueDate ? `due ${milestone.dueDate}` : '',
          html`created ${timeTag(milestone.createdAt, now)}`,
          html`updated ${timeTag(milestone.updatedAt, now)}`,
        ])}
      </header>
      ${markdownBody(milestone.description, 'No description.')}
      ${eventsSection('Activity', events, here.frame, 'No activity recorded.')}
    </article>`;
    return send(reply, here, milestone.title, body);
  }

  /**
   * A project snippet's comments and events: pulsegate keeps snippets as the targets of notes
   * only (no files), and the notes service decides who may read them.
   */
  async function snippetPage(reply: FastifyReply, here: Here, arg: string) {
    if (!IID.test(arg)) return null;
    const id = Number(arg);
    const notes = await found(notesOf(here, { type: 'Snippet', id }));
    if (!notes) return null;
    const events = await services.objectActivity.ofTarget(
      here.resolved,
      { type: 'Snippet', id },
      viewerOfHere(here),
    );
    const body = html`<article class="card object">
      ${projectBar(here.resolved.project)}
      <header class="page-header">
        <h1>Snippet <span class="muted">$${id}</span></h1>
        <p class="muted">pulsegate keeps a snippet's comments, not its files.</p>
      </header>
      ${notesSection(notes.notes, here.frame.now)}
      ${eventsSection('Activity', events, here.frame, 'No activity recorded.')}
    </article>`;
    return send(reply, here, `Snippet $${id}`, body);
  }

  const viewerOfHere = (here: Here) => (here.ctx ? viewerOf(here.ctx.user) : null);

  async function commitPage(reply: FastifyReply, here: Here, sha: string) {
    if (!SHA.test(sha)) return null;
    const pushes = await services.objectActivity.pushes(
      here.resolved,
      { kind: 'commit', sha },
      viewerOfHere(here),
    );
    const kept = pushes.flatMap((e) => e.push?.commits ?? []).find((c) => c.id === sha);
    const head = pushes.find((e) => e.push?.commitTo === sha)?.push;
    if (!kept && !head) return null;
    const message = kept?.message ?? head?.commitTitle ?? '';
    const [subject, ...rest] = message.split('\n');
    const body = html`<article class="card object">
      ${projectBar(here.resolved.project)}
      <header class="page-header">
        <h1>${subject || 'Commit'}</h1>
        ${byline([
          html`commit <code class="sha">${sha}</code>`,
          kept ? html`authored by ${kept.author.name}` : '',
          kept && Number.isFinite(Date.parse(kept.timestamp))
            ? html`committed ${timeTag(Date.parse(kept.timestamp), here.frame.now)}`
            : '',
        ])}
      </header>
      ${rest.join('\n').trim() ? html`<pre class="message">${rest.join('\n').trim()}</pre>` : ''}
      <p class="muted">
        pulsegate keeps the push data its hook reports (messages, authors, times), not the
        repository: there is no diff to show.
      </p>
      ${eventsSection('Pushed in', pushes, here.frame, '')}
    </article>`;
    return send(reply, here, subject || sha, body);
  }

  async function comparePage(reply: FastifyReply, here: Here, range: string) {
    const m = /^([0-9a-f]{40}(?:[0-9a-f]{24})?)\.\.\.([0-9a-f]{40}(?:[0-9a-f]{24})?)$/.exec(range);
    if (!m) return null;
    const [, from, to] = m as unknown as [string, string, string];
    const pushes = await services.objectActivity.pushes(
      here.resolved,
      { kind: 'range', from, to },
      viewerOfHere(here),
    );
    return pushesPage(
      reply,
      here,
      `Compare ${from.slice(0, 8)}…${to.slice(0, 8)}`,
      pushes,
      html`Changes between <code class="sha">${from}</code> and <code class="sha">${to}</code>`,
    );
  }

  async function refPage(
    reply: FastifyReply,
    here: Here,
    refType: 'branch' | 'tag',
    ref: string | null,
  ) {
    const match: PushMatch = { kind: 'ref', refType, ref };
    const pushes = await services.objectActivity.pushes(here.resolved, match, viewerOfHere(here));
    const title =
      ref === null
        ? refType === 'tag'
          ? 'Tags'
          : 'Branches'
        : `${refType === 'tag' ? 'Tag' : 'Branch'} ${ref}`;
    return pushesPage(
      reply,
      here,
      title,
      pushes,
      html`The pushes recorded for ${ref === null ? `every ${refType}` : html`<code>${ref}</code>`}`,
    );
  }

  function pushesPage(
    reply: FastifyReply,
    here: Here,
    title: string,
    pushes: Awaited<ReturnType<typeof services.objectActivity.pushes>>,
    lead: Html,
  ) {
    const seen = new Set<string>();
    const commits: KeptCommit[] = [];
    for (const event of pushes) {
      for (const c of event.push?.commits ?? []) {
        if (seen.has(c.id)) continue;
        seen.add(c.id);
        commits.push(c);
      }
    }
    const body = html`<article class="card object">
      ${projectBar(here.resolved.project)}
      <header class="page-header">
        <h1>${title}</h1>
        <p class="muted">${lead}</p>
      </header>
      <h2>Commits</h2>
      ${
        commits.length > 0
          ? commitList(here.resolved.project, commits)
          : html`<p class="muted">
              No commits recorded here. pulsegate keeps the push data its hook reports, not the
              repository's contents.
            </p>`
      }
      ${eventsSection('Pushes', pushes, here.frame, 'No pushes recorded.')}
    </article>`;
    return send(reply, here, title, body);
  }

  /** `/groups/<path>`: the group's projects this viewer can read, its subgroups' included. */
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
