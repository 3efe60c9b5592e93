/**
 * Pushes reported by a repository's post-receive hook: one `pushed` event per ref update, with
 * GitLab's push payload (created/removed/pushed, branch/tag, commit title, the 20 newest commits),
 * authored by the pusher, who needs Developer access (`push_code`), as GitLab's git access check.
 */
import type { PushChange } from '../../domain/push-changes.js';
import { normalizePush, type StoredPush } from '../../domain/push-payload.js';
import { projectWebUrl } from '../../domain/links.js';
import { Ops } from './context.js';

/** One recorded ref update: the event's id and the payload as stored. */
export interface RecordedPush {
  eventId: number;
  push: StoredPush;
}

export interface PushReceipt {
  projectId: number;
  pushes: RecordedPush[];
}

export class PushOps extends Ops {
  /**
   * Records the changes of one push, in order. `externalUrl` makes each commit's web URL, stored
   * with it as GitLab's push data carries it.
   */
  async receive(
    idOrPath: string | number,
    changes: readonly PushChange[],
    externalUrl: string,
  ): Promise<PushReceipt> {
    const { project } = await this.projectFor(idOrPath, 'push_code');
    const webUrl = projectWebUrl(externalUrl, { fullPath: project.full_path });
    const pushes: RecordedPush[] = [];
    for (const change of changes) {
      const push = normalizePush({
        ref: change.ref,
        before: change.before,
        after: change.after,
        commitCount: change.totalCommitsCount,
        commits: change.commits.map((c) => ({
          id: c.id,
          message: c.message,
          timestamp: c.timestamp,
          url: `${webUrl}/-/commit/${c.id}`,
          author: { name: c.author.name, email: c.author.email },
        })),
      });
      const event = await this.recorder.record(
        {
          projectId: project.id,
          authorId: this.actor.user.id,
          action: 'pushed',
          targetType: null,
          targetId: null,
        },
        push,
      );
      pushes.push({ eventId: event.id, push });
    }
    return { projectId: project.id, pushes };
  }
}
