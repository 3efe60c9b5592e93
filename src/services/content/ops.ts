/**
 * Every content operation for one actor, on one store (a transaction's, for writes). Faces reach
 * them as `ops.issues.create(…)` inside `ContentService.write`, or `reading(actor).issues.get(…)`.
 */
import type { AccessSubject, OpsContext } from './context.js';
import { FollowOps } from './follows.js';
import { IssueOps } from './issues.js';
import { MemberOps } from './members.js';
import { MergeRequestOps } from './merge-requests.js';
import { MilestoneOps } from './milestones.js';
import { NoteOps } from './notes.js';
import { ProjectOps } from './projects.js';
import { PushOps } from './pushes.js';
import { StarOps } from './stars.js';

export class ContentOps {
  readonly projects: ProjectOps;
  readonly members: MemberOps;
  readonly issues: IssueOps;
  readonly mergeRequests: MergeRequestOps;
  readonly milestones: MilestoneOps;
  readonly notes: NoteOps;
  readonly pushes: PushOps;
  readonly stars: StarOps;
  readonly follows: FollowOps;

  constructor(readonly context: OpsContext) {
    this.projects = new ProjectOps(context);
    this.members = new MemberOps(context);
    this.issues = new IssueOps(context);
    this.mergeRequests = new MergeRequestOps(context);
    this.milestones = new MilestoneOps(context);
    this.notes = new NoteOps(context);
    this.pushes = new PushOps(context);
    this.stars = new StarOps(context);
    this.follows = new FollowOps(context);
  }

  /**
   * Throws what a fresh request would meet first when the actor may no longer read one of these
   * (404 for a project or an object now hidden from them): a retry's stored answer is replayed
   * only to someone who could still see what it shows.
   */
  async recheck(subjects: readonly AccessSubject[]): Promise<void> {
    for (const subject of subjects) {
      const access = await this.issues.project(subject.projectId);
      if (subject.kind === 'issue') await this.issues.readable(access, subject.iid);
      if (subject.kind === 'merge_request') await this.mergeRequests.find(access, subject.iid);
    }
  }
}
