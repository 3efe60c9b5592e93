/**
 * Issues, merge requests, milestones and snippets: each one's page (title, state, people, times,
 * Markdown description, comments in order, its own events) and the lists with state tabs and
 * pages. Reads are the content ops the REST routes call, for this viewer.
 */
import type { FastifyReply } from 'fastify';
import type { NoteableRef } from '../services/content/notes.js';
import type { Services } from '../services/container.js';
import type { UserView } from '../services/views.js';
import { timeTag } from './event-item.js';
import { html } from './html.js';
import { type Here, IID, type SendPage, found } from './object-page.js';
import {
  type ListRow,
  byline,
  eventsSection,
  listSection,
  markdownBody,
  notesSection,
  projectBar,
  projectHref,
  stateBadge,
  userLink,
} from './object-templates.js';

/** Rows per list page, as GitLab's issue lists. */
const LIST_SIZE = 20;
const NOTES_SHOWN = 100;

export function trackedPages(services: Services, send: SendPage) {
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
    const body = listSection({
      project: here.resolved.project,
      tab: 'issues',
      heading: 'Issues',
      base,
      states: [
        ['opened', 'Open'],
        ['closed', 'Closed'],
        ['all', 'All'],
      ],
      at,
      rows,
      empty: 'No issues here.',
      hasNext: at.offset + list.issues.length < list.total,
    });
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
    const body = listSection({
      project: here.resolved.project,
      tab: 'merge_requests',
      heading: 'Merge requests',
      base,
      states: [
        ['opened', 'Open'],
        ['merged', 'Merged'],
        ['closed', 'Closed'],
        ['all', 'All'],
      ],
      at,
      rows,
      empty: 'No merge requests here.',
      hasNext: at.offset + list.mergeRequests.length < list.total,
    });
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
    const body = listSection({
      project: here.resolved.project,
      tab: 'milestones',
      heading: 'Milestones',
      base,
      states: [
        ['active', 'Open'],
        ['closed', 'Closed'],
        ['all', 'All'],
      ],
      at,
      rows,
      empty: 'No milestones here.',
      hasNext: at.offset + list.milestones.length < list.total,
    });
    return send(reply, here, 'Milestones', body);
  }

  const notesOf = (here: Here, on: NoteableRef) =>
    here.ops.notes.list(here.path, on, { sort: 'asc', offset: 0, limit: NOTES_SHOWN });

  /** "closed 3 days ago by Bob": when a change happened, and who made it when that is known. */
  const changed = (verb: string, at: number | null, by: UserView | null, now: number) =>
    at === null ? '' : html`${verb} ${timeTag(at, now)}${by ? html` by ${userLink(by)}` : ''}`;

  const milestoneOf = (here: Here, milestone: { iid: number; title: string } | null) =>
    milestone
      ? html`milestone
          <a href="${projectHref(here.resolved.project, `/-/milestones/${milestone.iid}`)}"
            >${milestone.title}</a
          >`
      : '';

  /** An issue's or a merge request's description, its comments in order, and its own events. */
  const discussion = (
    here: Here,
    description: string,
    notes: Parameters<typeof notesSection>[0],
    events: Parameters<typeof eventsSection>[1],
  ) =>
    html`${markdownBody(description, 'No description.')} ${notesSection(notes, here.frame.now)}
    ${eventsSection('Activity', events, here.frame, 'No activity recorded.')}`;

  async function issuePage(reply: FastifyReply, here: Here, arg: string) {
    if (!IID.test(arg)) return null;
    const iid = Number(arg);
    const detail = await found(here.ops.issues.get(here.path, iid));
    if (!detail) return null;
    const { issue } = detail;
    const [notes, events] = await Promise.all([
      notesOf(here, { type: 'Issue', iid }),
      services.objectActivity.ofTarget(here.resolved, { type: 'Issue', id: issue.id }, here.viewer),
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
          changed('closed', issue.closedAt, detail.closedBy, now),
          html`updated ${timeTag(issue.updatedAt, now)}`,
          milestoneOf(here, detail.milestone),
        ])}
      </header>
      ${discussion(here, issue.description, notes.notes, events)}
    </article>`;
    return send(reply, here, `${issue.title} (#${issue.iid})`, body);
  }

  async function mergeRequestPage(reply: FastifyReply, here: Here, arg: string) {
    if (!IID.test(arg)) return null;
    const iid = Number(arg);
    const detail = await found(here.ops.mergeRequests.get(here.path, iid));
    if (!detail) return null;
    const mr = detail.mergeRequest;
    const [notes, events] = await Promise.all([
      notesOf(here, { type: 'MergeRequest', iid }),
      services.objectActivity.ofTarget(
        here.resolved,
        { type: 'MergeRequest', id: mr.id },
        here.viewer,
      ),
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
          changed('merged', mr.mergedAt, detail.mergedBy, now),
          mr.mergedAt === null ? changed('closed', mr.closedAt, detail.closedBy, now) : '',
          html`updated ${timeTag(mr.updatedAt, now)}`,
          milestoneOf(here, detail.milestone),
        ])}
      </header>
      ${discussion(here, mr.description, notes.notes, events)}
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
    const events = await services.objectActivity.ofTarget(
      here.resolved,
      { type: 'Milestone', id: milestone.id },
      here.viewer,
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
      here.viewer,
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

  return {
    issueList,
    mergeRequestList,
    milestoneList,
    issuePage,
    mergeRequestPage,
    milestonePage,
    snippetPage,
  };
}
