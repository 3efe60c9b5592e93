/**
 * The import ledger: which ids and unique keys exist (in the database before the import, or on an
 * earlier line), so that every reference is checked before anything is written and every unique
 * rule fails with a line number instead of a constraint error at commit time. It also derives an
 * event's `issue_id`, on which the confidentiality check depends.
 */
import type { ExistingKeys } from '../store/transfer.js';
import { DuplicateRecordError, RecordError } from './record-errors.js';
import { type DataRecord, type EventRecord, type NoteRecord, tokenDigest } from './record-kinds.js';

interface Owned {
  projectId: number;
}

interface NoteFacts extends Owned {
  /** The issue the note hangs on, or null for notes on other things. */
  issueId: number | null;
}

export class ReferenceLedger {
  private readonly users = new Set<number>();
  private readonly usernames = new Set<string>();
  private readonly emails = new Set<string>();
  private readonly projects = new Set<number>();
  private readonly fullPaths = new Set<string>();
  private readonly members = new Set<string>();
  private readonly approvals = new Set<string>();
  private readonly stars = new Set<string>();
  private readonly follows = new Set<string>();
  private readonly milestones = new Map<number, Owned>();
  private readonly issues = new Map<number, Owned>();
  private readonly issueIids = new Set<string>();
  private readonly mergeRequests = new Map<number, Owned>();
  private readonly mergeRequestIids = new Set<string>();
  private readonly snippets = new Set<number>();
  private readonly notes = new Map<number, NoteFacts>();
  private readonly events = new Set<number>();
  private readonly tokens = new Set<number>();
  private readonly tokenDigests = new Set<string>();
  private readonly applications = new Set<number>();
  private readonly applicationUids = new Set<string>();

  load(existing: ExistingKeys): void {
    for (const u of existing.users) this.addUser(u.id, u.username, u.email);
    for (const p of existing.projects) this.addProject(p.id, p.full_path);
    for (const m of existing.members) this.members.add(`${m.project_id}:${m.user_id}`);
    for (const a of existing.approvals) this.approvals.add(`${a.merge_request_id}:${a.user_id}`);
    for (const s of existing.stars) this.stars.add(`${s.user_id}:${s.project_id}`);
    for (const f of existing.follows) this.follows.add(`${f.follower_id}:${f.followee_id}`);
    for (const m of existing.milestones) this.milestones.set(m.id, { projectId: m.project_id });
    for (const i of existing.issues) {
      this.issues.set(i.id, { projectId: i.project_id });
      this.issueIids.add(`${i.project_id}:${i.iid}`);
    }
    for (const m of existing.mergeRequests) {
      this.mergeRequests.set(m.id, { projectId: m.project_id });
      this.mergeRequestIids.add(`${m.project_id}:${m.iid}`);
    }
    for (const s of existing.snippets) this.snippets.add(s.id);
    for (const n of existing.notes) {
      this.notes.set(n.id, {
        projectId: n.project_id,
        issueId: n.noteable_type === 'Issue' ? n.noteable_id : null,
      });
    }
    for (const t of existing.tokens) {
      this.tokens.add(t.id);
      this.tokenDigests.add(t.token_digest);
    }
    for (const a of existing.applications) {
      this.applications.add(a.id);
      this.applicationUids.add(a.uid);
    }
  }

  /** Existing event ids arrive in pages (there may be millions). */
  loadEventIds(ids: readonly number[]): void {
    for (const id of ids) this.events.add(id);
  }

  private addUser(id: number, username: string, email: string) {
    this.users.add(id);
    this.usernames.add(username.toLowerCase());
    this.emails.add(email.toLowerCase());
  }

  private addProject(id: number, fullPath: string) {
    this.projects.add(id);
    this.fullPaths.add(fullPath.toLowerCase());
  }

  private user(field: string, id: number) {
    if (!this.users.has(id)) throw new RecordError(`${field} ${id} is not a known user`);
  }

  private project(field: string, id: number) {
    if (!this.projects.has(id)) throw new RecordError(`${field} ${id} is not a known project`);
  }

  private fresh(kind: string, known: { has(id: number): boolean }, id: number) {
    if (known.has(id)) throw new DuplicateRecordError(`${kind} ${id} already exists`);
  }

  /** Remembers `key` (a pair that may occur once); seen before, the record is a duplicate. */
  private once(seen: Set<string>, key: string, duplicate: () => string) {
    if (seen.has(key)) throw new DuplicateRecordError(duplicate());
    seen.add(key);
  }

  /**
   * Checks one record against everything seen so far and, when it passes, remembers it. Returns
   * the `issue_id` for events (null otherwise). Throws RecordError naming the problem.
   */
  admit(r: DataRecord): number | null {
    switch (r.kind) {
      case 'user': {
        this.fresh('user', this.users, r.id);
        if (this.usernames.has(r.username.toLowerCase()))
          throw new DuplicateRecordError(`username "${r.username}" is already taken`);
        if (this.emails.has(r.email.toLowerCase()))
          throw new DuplicateRecordError(`email "${r.email}" is already taken`);
        this.addUser(r.id, r.username, r.email);
        return null;
      }
      case 'project': {
        this.fresh('project', this.projects, r.id);
        this.user('creator_id', r.creator_id);
        const fullPath = `${r.namespace}/${r.path}`;
        if (this.fullPaths.has(fullPath.toLowerCase()))
          throw new DuplicateRecordError(`project path "${fullPath}" is already taken`);
        this.addProject(r.id, fullPath);
        return null;
      }
      case 'member': {
        this.project('project_id', r.project_id);
        this.user('user_id', r.user_id);
        this.once(
          this.members,
          `${r.project_id}:${r.user_id}`,
          () => `user ${r.user_id} is already a member of project ${r.project_id}`,
        );
        return null;
      }
      case 'milestone':
        this.fresh('milestone', this.milestones, r.id);
        this.project('project_id', r.project_id);
        this.milestones.set(r.id, { projectId: r.project_id });
        return null;
      case 'issue':
      case 'merge_request': {
        const [items, iids] =
          r.kind === 'issue'
            ? [this.issues, this.issueIids]
            : [this.mergeRequests, this.mergeRequestIids];
        this.fresh(r.kind === 'issue' ? 'issue' : 'merge request', items, r.id);
        this.project('project_id', r.project_id);
        this.user('author_id', r.author_id);
        this.once(
          iids,
          `${r.project_id}:${r.iid}`,
          () => `iid ${r.iid} is already used in project ${r.project_id}`,
        );
        items.set(r.id, { projectId: r.project_id });
        return null;
      }
      case 'approval': {
        if (!this.mergeRequests.has(r.merge_request_id))
          throw new RecordError(`merge_request_id ${r.merge_request_id} is not a known merge request`);
        this.user('user_id', r.user_id);
        this.once(
          this.approvals,
          `${r.merge_request_id}:${r.user_id}`,
          () => `user ${r.user_id} already approved merge request ${r.merge_request_id}`,
        );
        return null;
      }
      case 'snippet':
        this.fresh('snippet', this.snippets, r.id);
        if (r.project_id != null) this.project('project_id', r.project_id);
        this.user('author_id', r.author_id);
        this.snippets.add(r.id);
        return null;
      case 'note':
        return this.admitNote(r);
      case 'event':
        return this.admitEvent(r);
      case 'personal_access_token':
        this.fresh('personal access token', this.tokens, r.id);
        this.user('user_id', r.user_id);
        if (this.tokenDigests.has(tokenDigest(r)))
          throw new DuplicateRecordError('this token (same digest) already exists');
        this.tokens.add(r.id);
        this.tokenDigests.add(tokenDigest(r));
        return null;
      case 'star': {
        this.user('user_id', r.user_id);
        this.project('project_id', r.project_id);
        this.once(
          this.stars,
          `${r.user_id}:${r.project_id}`,
          () => `user ${r.user_id} already starred project ${r.project_id}`,
        );
        return null;
      }
      case 'follow': {
        this.user('follower_id', r.follower_id);
        this.user('followee_id', r.followee_id);
        if (r.follower_id === r.followee_id)
          throw new RecordError('follower_id and followee_id must differ (nobody follows themselves)');
        this.once(
          this.follows,
          `${r.follower_id}:${r.followee_id}`,
          () => `user ${r.follower_id} already follows user ${r.followee_id}`,
        );
        return null;
      }
      case 'oauth_application':
        this.fresh('OAuth application', this.applications, r.id);
        this.user('owner_id', r.owner_id);
        if (this.applicationUids.has(r.uid))
          throw new DuplicateRecordError(`an application with uid ${r.uid} already exists`);
        this.applications.add(r.id);
        this.applicationUids.add(r.uid);
        return null;
    }
  }

  private sameProject(what: string, owned: Owned | undefined, projectId: number, id: number) {
    if (!owned) throw new RecordError(`${what} ${id} does not exist`);
    if (owned.projectId !== projectId)
      throw new RecordError(
        `${what} ${id} belongs to project ${owned.projectId}, not ${projectId}`,
      );
  }

  private admitNote(r: NoteRecord): null {
    this.fresh('note', this.notes, r.id);
    this.project('project_id', r.project_id);
    this.user('author_id', r.author_id);
    const what = `noteable ${r.noteable_type}`;
    switch (r.noteable_type) {
      case 'Issue':
        this.sameProject(what, this.issues.get(r.noteable_id), r.project_id, r.noteable_id);
        break;
      case 'MergeRequest':
        this.sameProject(what, this.mergeRequests.get(r.noteable_id), r.project_id, r.noteable_id);
        break;
      case 'Snippet':
        if (!this.snippets.has(r.noteable_id))
          throw new RecordError(`${what} ${r.noteable_id} does not exist`);
        break;
      case 'Commit':
        // Commits live in the repository, not in the database: nothing to check.
        break;
    }
    this.notes.set(r.id, {
      projectId: r.project_id,
      issueId: r.noteable_type === 'Issue' ? r.noteable_id : null,
    });
    return null;
  }

  private admitEvent(r: EventRecord): number | null {
    this.fresh('event', this.events, r.id);
    this.project('project_id', r.project_id);
    this.user('author_id', r.author_id);
    const issueId = this.eventTarget(r);
    this.events.add(r.id);
    return issueId;
  }

  /** Checks the target and returns the issue the event concerns, if any. */
  private eventTarget(r: EventRecord): number | null {
    const id = r.target_id;
    if (id == null) return null;
    const what = `target ${r.target_type}`;
    switch (r.target_type) {
      case 'Issue':
        this.sameProject(what, this.issues.get(id), r.project_id, id);
        return id;
      case 'MergeRequest':
        this.sameProject(what, this.mergeRequests.get(id), r.project_id, id);
        return null;
      case 'Milestone':
        this.sameProject(what, this.milestones.get(id), r.project_id, id);
        return null;
      case 'Note': {
        const note = this.notes.get(id);
        this.sameProject(what, note, r.project_id, id);
        return note!.issueId;
      }
      case 'Snippet':
        if (!this.snippets.has(id)) throw new RecordError(`${what} ${id} does not exist`);
        return null;
      case 'Project':
        this.project('target_id', id);
        return null;
      case 'User':
        this.user('target_id', id);
        return null;
      default:
        return null;
    }
  }
}
