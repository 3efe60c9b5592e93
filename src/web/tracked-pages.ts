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

  /** A kind's list: its state tabs (the first is the default), how to fetch a page, its rows. */
  interface ListKind<T> {
    tab: 'issues' | 'merge_requests' | 'milestones';
    heading: string;
    /** Each state's tab label, in tab order. */
    states: Record<string, string>;
    fetch: (
      state: string | undefined,
      at: { offset: number; limit: number },
    ) => Promise<[items: readonly T[], total: number]>;
    row: (item: T, base: string) => ListRow;
  }

  type Query = Record<string, string | undefined>;

  /** One list page of a kind (described for the project at hand): its tabs, rows, and pager. */
  const listing =
    <T>(kindIn: (here: Here) => ListKind<T>) =>
    async (reply: FastifyReply, here: Here, query: Query) => {
      const kind = kindIn(here);
      const at = listPage(query, Object.keys(kind.states));
      const state = at.state === 'all' ? undefined : at.state;
      const [items, total] = await kind.fetch(state, { offset: at.offset, limit: at.limit });
      const base = projectHref(here.resolved.project, `/-/${kind.tab}`);
      const body = listSection({
        project: here.resolved.project,
        tab: kind.tab,
        heading: kind.heading,
        base,
        states: Object.entries(kind.states),
        at,
        rows: items.map((item) => kind.row(item, base)),
        empty: `No ${kind.heading.toLowerCase()} here.`,
        hasNext: at.offset + items.length < total,
      });
      return send(reply, here, kind.heading, body);
    };

  const byAuthor = (author: UserView | null) => author?.name ?? 'a deleted user';

  const issueList = listing((here) => ({
    tab: 'issues',
    heading: 'Issues',
    states: { opened: 'Open', closed: 'Closed', all: 'All' },
    fetch: (state, at) => {
      const filter = {
        state: state as 'opened' | 'closed' | undefined,
        sort: 'desc' as const,
        ...at,
      };
      return here.ops.issues.list(here.path, filter).then((l) => [l.issues, l.total]);
    },
    row: (d, base) => ({
      href: `${base}/${d.issue.iid}`,
      reference: `#${d.issue.iid}`,
      title: d.issue.title,
      state: d.issue.state,
      detail: html`opened ${timeTag(d.issue.createdAt, here.frame.now)} by ${byAuthor(d.author)}`,
    }),
  }));

  const mergeRequestList = listing((here) => ({
    tab: 'merge_requests',
    heading: 'Merge requests',
    states: { opened: 'Open', merged: 'Merged', closed: 'Closed', all: 'All' },
    fetch: (state, at) => {
      const filter = {
        state: state as 'opened' | 'closed' | 'merged' | undefined,
        sort: 'desc' as const,
        ...at,
      };
      return here.ops.mergeRequests.list(here.path, filter).then((l) => [l.mergeRequests, l.total]);
    },
    row: ({ mergeRequest: mr, author }, base) => ({
      href: `${base}/${mr.iid}`,
      reference: `!${mr.iid}`,
      title: mr.title,
      state: mr.state,
      detail: html`${
        mr.sourceBranch && mr.targetBranch ? `${mr.sourceBranch} → ${mr.targetBranch} · ` : ''
      }opened
      ${timeTag(mr.createdAt, here.frame.now)} by ${byAuthor(author)}`,
    }),
  }));

  const milestoneList = listing((here) => ({
    tab: 'milestones',
    heading: 'Milestones',
    states: { active: 'Open', closed: 'Closed', all: 'All' },
    fetch: (state, at) => {
      const filter = { state: state as 'active' | 'closed' | undefined, ...at };
      return here.ops.milestones.list(here.path, filter).then((l) => [l.milestones, l.total]);
    },
    row: (m, base) => ({
      href: `${base}/${m.iid}`,
      reference: `%${m.iid}`,
      title: m.title,
      state: m.state,
      detail: m.dueDate ? `due ${m.dueDate}` : 'no due date',
    }),
  }));

  /** The events recorded on one object of the project, for this viewer. */
  const activityOf = (
    here: Here,
    type: 'Issue' | 'MergeRequest' | 'Milestone' | 'Snippet',
    id: number,
  ) => services.objectActivity.ofTarget(here.resolved, { type, id }, here.viewer);

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

  /** An issue's or merge request's page: its header, then its description, comments and events. */
  async function trackedPage(
    reply: FastifyReply,
    here: Here,
    page: {
      tab: 'issues' | 'merge_requests';
      type: 'Issue' | 'MergeRequest';
      row: { id: number; iid: number; title: string; description: string };
      reference: string;
      byline: Parameters<typeof byline>[0];
    },
  ) {
    const { row } = page;
    const [notes, events] = await Promise.all([
      notesOf(here, { type: page.type, iid: row.iid }),
      activityOf(here, page.type, row.id),
    ]);
    const body = html`<article class="card object">
      ${projectBar(here.resolved.project, page.tab)}
      <header class="page-header">
        <h1>${row.title} <span class="muted">${page.reference}</span></h1>
        ${byline(page.byline)}
      </header>
      ${discussion(here, row.description, notes.notes, events)}
    </article>`;
    return send(reply, here, `${row.title} (${page.reference})`, body);
  }

  async function issuePage(reply: FastifyReply, here: Here, arg: string) {
    if (!IID.test(arg)) return null;
    const detail = await found(here.ops.issues.get(here.path, Number(arg)));
    if (!detail) return null;
    const { issue } = detail;
    const now = here.frame.now;
    return trackedPage(reply, here, {
      tab: 'issues',
      type: 'Issue',
      row: issue,
      reference: `#${issue.iid}`,
      byline: [
        stateBadge(issue.state),
        issue.confidential ? html`<span class="state confidential">confidential</span>` : '',
        html`opened ${timeTag(issue.createdAt, now)} by ${userLink(detail.author)}`,
        changed('closed', issue.closedAt, detail.closedBy, now),
        html`updated ${timeTag(issue.updatedAt, now)}`,
        milestoneOf(here, detail.milestone),
      ],
    });
  }

  async function mergeRequestPage(reply: FastifyReply, here: Here, arg: string) {
    if (!IID.test(arg)) return null;
    const detail = await found(here.ops.mergeRequests.get(here.path, Number(arg)));
    if (!detail) return null;
    const mr = detail.mergeRequest;
    const now = here.frame.now;
    return trackedPage(reply, here, {
      tab: 'merge_requests',
      type: 'MergeRequest',
      row: mr,
      reference: `!${mr.iid}`,
      byline: [
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
      ],
    });
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
    const events = await activityOf(here, 'Milestone', milestone.id);
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
    const events = await activityOf(here, 'Snippet', id);
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
