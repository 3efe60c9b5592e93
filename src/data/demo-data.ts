/**
 * The demo data set, built deterministically in memory: seven users (an admin, a private profile,
 * a blocked account), seven projects across every visibility and both namespace kinds, and ~90
 * days of activity before DEMO_END that covers every action and target type, pushes of every kind
 * and a confidential issue with notes, and stars and follows between the users (DEMO_STARS,
 * DEMO_FOLLOWS). It is imported through the same checks as any file.
 */
import type {
  DataRecord,
  EventRecord,
  IssueRecord,
  MergeRequestRecord,
  MilestoneRecord,
  NoteRecord,
  SnippetRecord,
} from './record-kinds.js';
import type { Action, TargetClass } from '../domain/vocabulary.js';
import * as C from './demo-catalog.js';
import { demoPush } from './demo-pushes.js';
import { Prng } from './prng.js';

const DAY = 86_400_000;
const ERIN_BLOCKED_AFTER_DAY = 60;

interface ProjectState {
  id: number;
  fullPath: string;
  webUrl: string;
  spec: C.DemoProject;
  members: { userId: number; level: number }[];
  issues: IssueRecord[];
  mrs: MergeRequestRecord[];
  milestones: MilestoneRecord[];
  snippets: SnippetRecord[];
  iid: { issue: number; mr: number; milestone: number };
  heads: Map<string, string>;
}

type Kind =
  | 'push'
  | 'issue_open'
  | 'issue_close'
  | 'issue_reopen'
  | 'issue_update'
  | 'mr_open'
  | 'mr_update'
  | 'mr_merge'
  | 'mr_close'
  | 'mr_approve'
  | 'comment'
  | 'milestone_create'
  | 'milestone_close'
  | 'milestone_destroy'
  | 'snippet_create'
  | 'snippet_update'
  | 'joined'
  | 'left'
  | 'expired'
  | 'project_update'
  | 'user_update';

const WEIGHTS: (readonly [Kind, number])[] = [
  ['push', 30],
  ['issue_open', 9],
  ['issue_close', 4],
  ['issue_reopen', 1],
  ['issue_update', 1.5],
  ['mr_open', 6],
  ['mr_update', 1.5],
  ['mr_merge', 4],
  ['mr_close', 1],
  ['mr_approve', 3],
  ['comment', 18],
  ['milestone_create', 0.6],
  ['milestone_close', 0.4],
  ['milestone_destroy', 0.2],
  ['snippet_create', 0.6],
  ['snippet_update', 0.4],
  ['joined', 0.5],
  ['left', 0.3],
  ['expired', 0.2],
  ['project_update', 0.3],
  ['user_update', 0.3],
];

/** What closing writes on an issue or merge request, as the write API does. */
const closedBy = (userId: number, at: number) =>
  ({ state: 'closed', closed_at: at, closed_by_id: userId }) as const;
const REOPENED = { state: 'opened', closed_at: null, closed_by_id: null } as const;

/** The demo records in dependency order. `passwordHash` is shared: hashing once keeps this fast. */
/** The demo data set; commit URLs point at `baseUrl`, the instance's external URL. */
export function demoRecords(passwordHash: string, baseUrl: string = C.DEMO_BASE_URL): DataRecord[] {
  return new DemoBuilder(passwordHash, baseUrl).build();
}

class DemoBuilder {
  private readonly rng = new Prng(20260114);
  private readonly out: { [K in DataRecord['kind']]: DataRecord[] } = {
    user: [],
    project: [],
    member: [],
    milestone: [],
    issue: [],
    merge_request: [],
    approval: [],
    snippet: [],
    note: [],
    event: [],
    personal_access_token: [],
    oauth_application: [],
    star: [],
    follow: [],
  };
  private readonly userIds = new Map<string, number>();
  private readonly projects: ProjectState[] = [];
  private readonly approvals = new Set<string>();
  private readonly seq = { milestone: 0, issue: 0, mr: 0, snippet: 0, note: 0, event: 0 };
  private day = 0;

  constructor(
    private readonly passwordHash: string,
    private readonly baseUrl: string,
  ) {}

  build(): DataRecord[] {
    const start = C.DEMO_END - C.DEMO_DAYS * DAY;
    C.DEMO_USERS.forEach((u, i) => {
      const id = i + 1;
      this.userIds.set(u.username, id);
      this.out.user.push({
        kind: 'user',
        id,
        username: u.username,
        name: u.name,
        email: `${u.username}@example.com`,
        state: u.blocked ? 'blocked' : 'active',
        password: null,
        password_hash: this.passwordHash,
        admin: u.admin ?? false,
        two_factor_enabled: false,
        private_profile: u.privateProfile ?? false,
        avatar_url: null,
        created_at: start - 30 * DAY + i * 3_600_000,
      });
    });
    C.DEMO_PROJECTS.forEach((spec, i) => this.addProject(spec, i + 1, start - 10 * DAY + i * DAY));
    this.social(start - DAY);
    for (const p of this.projects) {
      this.event(p, this.uid(p.spec.creator), 'created', null, null, start + 3_600_000 * p.id);
    }
    for (this.day = 0; this.day < C.DEMO_DAYS; this.day++) {
      const dayStart = start + this.day * DAY;
      const weekday = new Date(dayStart).getUTCDay() % 6 !== 0;
      const count = weekday ? 24 + this.rng.int(14) : 4 + this.rng.int(6);
      const times = Array.from(
        { length: count },
        () => dayStart + 8 * 3_600_000 + this.rng.int(11 * 3_600_000),
      ).sort((a, b) => a - b);
      if (this.day === 20) this.confidentialStory(dayStart + 9 * 3_600_000);
      for (const t of times) this.activity(t);
    }
    return Object.values(this.out).flat();
  }

  /** Stars and follows, a minute apart the day before the activity starts. */
  private social(at: number) {
    let minute = 0;
    const next = () => at + 60_000 * minute++;
    const projectIds = new Map(this.projects.map((p) => [p.fullPath, p.id]));
    for (const [username, paths] of Object.entries(C.DEMO_STARS)) {
      for (const path of paths) {
        this.out.star.push({
          kind: 'star',
          user_id: this.uid(username),
          project_id: projectIds.get(path)!,
          created_at: next(),
        });
      }
    }
    for (const [username, followees] of Object.entries(C.DEMO_FOLLOWS)) {
      for (const followee of followees) {
        this.out.follow.push({
          kind: 'follow',
          follower_id: this.uid(username),
          followee_id: this.uid(followee),
          created_at: next(),
        });
      }
    }
  }

  private uid(username: string): number {
    return this.userIds.get(username)!;
  }

  private addProject(spec: C.DemoProject, id: number, createdAt: number) {
    const creator = this.uid(spec.creator);
    this.out.project.push({
      kind: 'project',
      id,
      namespace: spec.namespace,
      path: spec.path,
      name: spec.name,
      description: spec.description,
      visibility: spec.visibility,
      creator_id: creator,
      created_at: createdAt,
    });
    const members = [{ userId: creator, level: 50 }].concat(
      Object.entries(spec.members).map(([u, level]) => ({ userId: this.uid(u), level })),
    );
    for (const m of members) {
      this.out.member.push({
        kind: 'member',
        project_id: id,
        user_id: m.userId,
        access_level: m.level,
      });
    }
    this.projects.push({
      id,
      fullPath: `${spec.namespace}/${spec.path}`,
      webUrl: `${this.baseUrl}/${spec.namespace}/${spec.path}`,
      spec,
      members,
      issues: [],
      mrs: [],
      milestones: [],
      snippets: [],
      iid: { issue: 0, mr: 0, milestone: 0 },
      heads: new Map([['main', this.rng.sha()]]),
    });
  }

  private event(
    p: ProjectState,
    authorId: number,
    action: Action,
    targetType: TargetClass | null,
    targetId: number | null,
    at: number,
    push: EventRecord['push'] = null,
  ) {
    this.out.event.push({
      kind: 'event',
      id: ++this.seq.event,
      project_id: p.id,
      author_id: authorId,
      action,
      target_type: targetType,
      target_id: targetId,
      created_at: at,
      push,
    });
  }

  /** A new object of the project: kept in the project's list and the output, with its event. */
  private created<R extends DataRecord & { id: number }>(
    p: ProjectState,
    [own, out]: [R[], DataRecord[]],
    record: R,
    targetType: TargetClass,
    authorId: number,
    at: number,
  ) {
    own.push(record);
    out.push(record);
    this.event(p, authorId, 'created', targetType, record.id, at);
  }

  private author(p: ProjectState, minLevel: number): number {
    const erinId = this.uid('erin');
    const eligible = p.members.filter(
      (m) => m.level >= minLevel && !(m.userId === erinId && this.day > ERIN_BLOCKED_AFTER_DAY),
    );
    return this.rng.pick(eligible.length ? eligible : p.members).userId;
  }

  private pickProject(): ProjectState {
    const weights = this.projects.map((p) => [String(p.id), p.spec.weight] as const);
    return this.projects[Number(this.rng.weighted(weights)) - 1]!;
  }

  private activity(at: number) {
    const p = this.pickProject();
    const kind = this.rng.weighted(WEIGHTS);
    const open = <T extends { state?: string }>(items: T[]) =>
      items.filter((i) => i.state === 'opened');
    const dev = () => this.author(p, 30);
    const anyone = () => this.author(p, 10);
    switch (kind) {
      case 'push':
        return this.push(p, dev(), at);
      case 'issue_close':
      case 'issue_update': {
        const issue = open(p.issues).find((i) => !i.confidential);
        if (!issue) return this.newIssue(p, anyone(), at, false);
        const who = dev();
        issue.updated_at = at;
        if (kind === 'issue_close') Object.assign(issue, closedBy(who, at));
        return this.event(
          p,
          who,
          kind === 'issue_close' ? 'closed' : 'updated',
          'Issue',
          issue.id,
          at,
        );
      }
      case 'issue_reopen': {
        const issue = p.issues.find((i) => i.state === 'closed' && !i.confidential);
        if (!issue) return this.newIssue(p, anyone(), at, false);
        Object.assign(issue, REOPENED, { updated_at: at });
        return this.event(p, dev(), 'reopened', 'Issue', issue.id, at);
      }
      case 'mr_update':
      case 'mr_merge':
      case 'mr_close':
      case 'mr_approve': {
        const mr = open(p.mrs)[0];
        if (!mr) return this.newMergeRequest(p, dev(), at);
        const action = (
          {
            mr_update: 'updated',
            mr_merge: 'merged',
            mr_close: 'closed',
            mr_approve: 'approved',
          } as const
        )[kind];
        const who = dev();
        if (action !== 'approved') mr.updated_at = at;
        if (action === 'merged') Object.assign(mr, { state: 'merged', merged_at: at, merged_by_id: who });
        if (action === 'closed') Object.assign(mr, closedBy(who, at));
        // A member approves a merge request once, as GitLab allows.
        if (action === 'approved' && !this.approve(mr, who, at)) return;
        return this.event(p, who, action, 'MergeRequest', mr.id, at);
      }
      case 'comment':
        return this.comment(p, anyone(), at);
      case 'milestone_create':
      case 'milestone_close':
      case 'milestone_destroy': {
        // Only an active milestone is closed; a destroyed one is gone from the project (its
        // record stays, as the events that name it need it).
        const closing = kind === 'milestone_close';
        const existing = p.milestones.findLast((m) => !closing || m.state !== 'closed');
        if (kind === 'milestone_create' || !existing) return this.newMilestone(p, dev(), at);
        if (closing) Object.assign(existing, { state: 'closed', updated_at: at });
        else p.milestones.splice(p.milestones.indexOf(existing), 1);
        return this.event(
          p,
          dev(),
          kind === 'milestone_close' ? 'closed' : 'destroyed',
          'Milestone',
          existing.id,
          at,
        );
      }
      case 'snippet_create':
      case 'snippet_update': {
        const snippet = p.snippets[0];
        if (kind === 'snippet_create' || !snippet) return this.newSnippet(p, dev(), at);
        return this.event(p, snippet.author_id, 'updated', 'Snippet', snippet.id, at);
      }
      case 'joined':
      case 'left':
      case 'expired':
        return this.event(p, anyone(), kind, null, null, at);
      case 'project_update':
        return this.event(p, this.author(p, 40), 'updated', 'Project', p.id, at);
      case 'user_update': {
        const who = anyone();
        return this.event(p, who, 'updated', 'User', who, at);
      }
      case 'mr_open':
        return this.newMergeRequest(p, dev(), at);
      case 'issue_open':
        return this.newIssue(p, anyone(), at, false);
    }
  }

  private newIssue(p: ProjectState, authorId: number, at: number, confidential: boolean) {
    const issue: IssueRecord = {
      kind: 'issue',
      id: ++this.seq.issue,
      project_id: p.id,
      iid: ++p.iid.issue,
      title: confidential ? C.CONFIDENTIAL_ISSUE_TITLE : this.rng.pick(C.ISSUE_TITLES),
      author_id: authorId,
      confidential,
      state: 'opened',
      created_at: at,
    };
    this.created(p, [p.issues, this.out.issue], issue, 'Issue', authorId, at);
    return issue;
  }

  /** Records the approval; false when that member had already approved. */
  private approve(mr: MergeRequestRecord, userId: number, at: number): boolean {
    const key = `${mr.id}:${userId}`;
    if (this.approvals.has(key)) return false;
    this.approvals.add(key);
    this.out.approval.push({
      kind: 'approval',
      merge_request_id: mr.id,
      user_id: userId,
      created_at: at,
    });
    return true;
  }

  private newMergeRequest(p: ProjectState, authorId: number, at: number) {
    const mr: MergeRequestRecord = {
      kind: 'merge_request',
      id: ++this.seq.mr,
      project_id: p.id,
      iid: ++p.iid.mr,
      title: this.rng.pick(C.MR_TITLES),
      author_id: authorId,
      state: 'opened',
      created_at: at,
    };
    this.created(p, [p.mrs, this.out.merge_request], mr, 'MergeRequest', authorId, at);
  }

  private newMilestone(p: ProjectState, authorId: number, at: number) {
    const ms: MilestoneRecord = {
      kind: 'milestone',
      id: ++this.seq.milestone,
      project_id: p.id,
      iid: ++p.iid.milestone,
      title: milestoneTitle(p.iid.milestone),
      created_at: at,
    };
    this.created(p, [p.milestones, this.out.milestone], ms, 'Milestone', authorId, at);
  }

  private newSnippet(p: ProjectState, authorId: number, at: number) {
    const snippet: SnippetRecord = {
      kind: 'snippet',
      id: ++this.seq.snippet,
      project_id: p.id,
      title: this.rng.pick(C.SNIPPET_TITLES),
      author_id: authorId,
      visibility: p.spec.visibility,
      created_at: at,
    };
    this.created(p, [p.snippets, this.out.snippet], snippet, 'Snippet', authorId, at);
  }

  private note(
    p: ProjectState,
    authorId: number,
    at: number,
    noteable: Pick<NoteRecord, 'noteable_type' | 'noteable_id'>,
    body: string,
  ) {
    const note: NoteRecord = {
      kind: 'note',
      id: ++this.seq.note,
      project_id: p.id,
      author_id: authorId,
      body,
      ...noteable,
      system: false,
      attachment: null,
      created_at: at,
      updated_at: at,
    };
    this.out.note.push(note);
    this.event(p, authorId, 'commented', 'Note', note.id, at);
  }

  private comment(p: ProjectState, authorId: number, at: number) {
    const body = this.rng.pick(C.NOTE_BODIES);
    const roll = this.rng.next();
    const issues = p.issues.filter((i) => !i.confidential);
    if (roll < 0.5 && issues.length) {
      return this.note(
        p,
        authorId,
        at,
        { noteable_type: 'Issue', noteable_id: this.rng.pick(issues).id },
        body,
      );
    }
    if (roll < 0.9 && p.mrs.length) {
      return this.note(
        p,
        authorId,
        at,
        { noteable_type: 'MergeRequest', noteable_id: this.rng.pick(p.mrs).id },
        body,
      );
    }
    if (p.snippets.length) {
      return this.note(
        p,
        authorId,
        at,
        { noteable_type: 'Snippet', noteable_id: this.rng.pick(p.snippets).id },
        body,
      );
    }
    this.newIssue(p, authorId, at, false);
  }

  /** A confidential security issue in the public API project, discussed by its maintainers. */
  private confidentialStory(at: number) {
    const p = this.projects[0]!;
    const issue = this.newIssue(p, this.uid('carol'), at, true);
    const voices = ['carol', 'bob', 'alice'];
    C.CONFIDENTIAL_NOTES.forEach((body, i) => {
      const noteable = { noteable_type: 'Issue' as const, noteable_id: issue.id };
      this.note(p, this.uid(voices[i]!), at + (i + 1) * 3_600_000, noteable, body);
    });
  }

  private push(p: ProjectState, authorId: number, at: number) {
    const push = demoPush(this.rng, p, C.DEMO_USERS[authorId - 1]!, at, this.seq.event, this.day);
    this.event(p, authorId, 'pushed', null, null, at, push);
  }
}

/** The n-th milestone's title in a project: the catalog's, then numbered, as titles are unique. */
function milestoneTitle(iid: number): string {
  const titles = C.MILESTONE_TITLES;
  const round = Math.floor((iid - 1) / titles.length);
  const title = titles[(iid - 1) % titles.length]!;
  return round === 0 ? title : `${title} (${round + 1})`;
}
