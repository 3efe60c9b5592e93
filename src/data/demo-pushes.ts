/**
 * Demo pushes: mostly commits to main or a feature branch, sometimes a new branch, a deleted
 * branch, a release tag, or a big merge with more commits than push data keeps (20).
 */
import type { PushCommit, PushInput } from '../domain/push-payload.js';
import { BLANK_SHA } from '../domain/vocabulary.js';
import * as C from './demo-catalog.js';
import type { Prng } from './prng.js';

export interface Repository {
  fullPath: string;
  /** The project's web URL under the instance's external URL. */
  webUrl: string;
  /** Branch name → head commit id; mutated as pushes move the heads. */
  heads: Map<string, string>;
}

function commits(
  rng: Prng,
  repo: Repository,
  user: C.DemoUser,
  at: number,
  count: number,
): PushCommit[] {
  return Array.from({ length: count }, (_, i) => {
    const id = rng.sha();
    const ts = new Date(at - (count - i) * 60_000).toISOString().replace(/\.\d{3}Z$/, '+00:00');
    return {
      id,
      message: rng.pick(C.COMMIT_MESSAGES),
      timestamp: ts,
      url: `${repo.webUrl}/-/commit/${id}`,
      author: { name: user.name, email: `${user.username}@example.com` },
    };
  });
}

/** The next push to `repo`; `serial` and `day` make branch and tag names unique and plausible. */
export function demoPush(
  rng: Prng,
  repo: Repository,
  user: C.DemoUser,
  at: number,
  serial: number,
  day: number,
): PushInput {
  const roll = rng.next();
  const heads = repo.heads;
  if (roll < 0.08) {
    // A new branch with its first commits.
    const branch = `${rng.pick(C.BRANCHES)}-${serial}`;
    const list = commits(rng, repo, user, at, 1 + rng.int(3));
    const after = list.at(-1)!.id;
    heads.set(branch, after);
    return {
      ref: `refs/heads/${branch}`,
      before: BLANK_SHA,
      after,
      commitCount: list.length,
      commits: list,
    };
  }
  if (roll < 0.13 && heads.size > 1) {
    // A merged branch deleted.
    const branch = [...heads.keys()].find((b) => b !== 'main')!;
    const before = heads.get(branch)!;
    heads.delete(branch);
    return { ref: `refs/heads/${branch}`, before, after: BLANK_SHA, commitCount: 0, commits: [] };
  }
  if (roll < 0.17) {
    // A release tag (tags carry no commits).
    const tag = `v1.${Math.floor(day / 15)}.${serial % 10}`;
    return {
      ref: `refs/tags/${tag}`,
      before: BLANK_SHA,
      after: heads.get('main')!,
      commitCount: 0,
      commits: [],
    };
  }
  // A big merge (more commits than push data keeps), or an ordinary push.
  const big = roll < 0.19;
  const branch = big || rng.chance(0.6) ? 'main' : rng.pick([...heads.keys()]);
  const count = big ? 23 + rng.int(8) : 1 + (rng.chance(0.3) ? rng.int(6) : 0);
  const list = commits(rng, repo, user, at, count);
  const before = heads.get(branch)!;
  const after = list.at(-1)!.id;
  heads.set(branch, after);
  return { ref: `refs/heads/${branch}`, before, after, commitCount: list.length, commits: list };
}
