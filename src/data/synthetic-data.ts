/**
 * Large synthetic data for benchmarks: U users, P projects with members, some content, then N
 * events spread over the year before a fixed date, all from a seeded PRNG (reproducible). Records
 * are generated lazily, so a million events never sit in memory at once.
 */
import type { PushCommit } from '../domain/push-payload.js';
import type { DataRecord } from './record-kinds.js';
import { ACCESS_LEVEL_VALUES, type Action, VISIBILITIES } from '../domain/vocabulary.js';
import { Prng } from './prng.js';

export interface SyntheticOptions {
  events: number;
  users: number;
  projects: number;
  seed?: number;
}

/** Ids already taken per table: generated ids continue after them. */
export interface IdOffsets {
  users: number;
  projects: number;
  milestones: number;
  issues: number;
  merge_requests: number;
  snippets: number;
  notes: number;
  events: number;
}

const END = Date.UTC(2026, 0, 1);
const SPAN = 365 * 86_400_000;
const GROUPS = ['acme', 'globex', 'initech', 'umbrella', 'hooli'];
const WORDS = ['api', 'web', 'worker', 'docs', 'infra', 'mobile', 'search', 'billing', 'auth'];
const ACTION_WEIGHTS: (readonly [string, number])[] = [
  ['push', 30],
  ['issue', 20],
  ['mr', 15],
  ['note', 25],
  ['milestone', 2],
  ['member', 3],
  ['project', 5],
];

export function* syntheticRecords(
  options: SyntheticOptions,
  offsets: IdOffsets,
): Generator<DataRecord> {
  const rng = new Prng(options.seed ?? 42);
  const { users: U, projects: P, events: N } = options;
  const tag = offsets.users > 0 ? `-${offsets.users}` : '';
  const userIds: number[] = [];
  for (let i = 1; i <= U; i++) {
    const id = offsets.users + i;
    userIds.push(id);
    const username = `user${i}${tag}`;
    yield {
      kind: 'user',
      id,
      username,
      name: `User ${i}`,
      email: `${username}@example.com`,
      state: 'active',
      password: null,
      password_hash: null,
      admin: false,
      two_factor_enabled: false,
      private_profile: false,
      avatar_url: null,
      created_at: END - SPAN - 86_400_000,
    };
  }
  // Per project: its id, its members, and the content ids events can point at.
  const projects: {
    id: number;
    members: number[];
    issues: number[];
    mrs: number[];
    notes: number[];
    milestones: number[];
  }[] = [];
  for (let i = 1; i <= P; i++) {
    const id = offsets.projects + i;
    const creator = userIds[(i - 1) % U]!;
    const group =
      i % 3 === 0 ? `user${((i - 1) % U) + 1}${tag}` : `${GROUPS[i % GROUPS.length]}${tag}`;
    yield {
      kind: 'project',
      id,
      namespace: group,
      path: `${WORDS[i % WORDS.length]}-${i}`,
      name: `${WORDS[i % WORDS.length]} ${i}`,
      description: `Synthetic project ${i}`,
      visibility: VISIBILITIES[i % VISIBILITIES.length]!,
      creator_id: creator,
      created_at: END - SPAN,
    };
    const members = new Set([creator]);
    yield { kind: 'member', project_id: id, user_id: creator, access_level: 50 };
    for (let k = 0; k < Math.min(U - 1, 8); k++) {
      const user = userIds[rng.int(U)]!;
      if (members.has(user)) continue;
      members.add(user);
      yield {
        kind: 'member',
        project_id: id,
        user_id: user,
        access_level: ACCESS_LEVEL_VALUES[1 + rng.int(4)]!,
      };
    }
    projects.push({ id, members: [...members], issues: [], mrs: [], notes: [], milestones: [] });
  }
  // Content: about one issue per 25 events, one MR per 50, one note per 25, two milestones per project.
  const seq = {
    milestones: offsets.milestones,
    issues: offsets.issues,
    mrs: offsets.merge_requests,
    notes: offsets.notes,
  };
  for (const p of projects) {
    for (let k = 1; k <= 2; k++) {
      p.milestones.push(++seq.milestones);
      yield {
        kind: 'milestone',
        id: seq.milestones,
        project_id: p.id,
        iid: k,
        title: `v${k}.0`,
        created_at: END - SPAN,
      };
    }
  }
  const perProject = (n: number) => Math.max(1, Math.ceil(n / P));
  for (const p of projects) {
    for (let k = 1; k <= perProject(N / 25); k++) {
      p.issues.push(++seq.issues);
      yield {
        kind: 'issue',
        id: seq.issues,
        project_id: p.id,
        iid: k,
        title: `Issue ${k} of project ${p.id}`,
        author_id: rng.pick(p.members),
        confidential: rng.chance(0.05),
        state: rng.chance(0.6) ? 'opened' : 'closed',
        created_at: END - SPAN,
      };
    }
    for (let k = 1; k <= perProject(N / 50); k++) {
      p.mrs.push(++seq.mrs);
      yield {
        kind: 'merge_request',
        id: seq.mrs,
        project_id: p.id,
        iid: k,
        title: `Merge request ${k} of project ${p.id}`,
        author_id: rng.pick(p.members),
        state: rng.pick(['opened', 'merged', 'closed'] as const),
        created_at: END - SPAN,
      };
    }
  }
  for (const p of projects) {
    for (let k = 1; k <= perProject(N / 25); k++) {
      p.notes.push(++seq.notes);
      const onIssue = rng.chance(0.6);
      yield {
        kind: 'note',
        id: seq.notes,
        project_id: p.id,
        author_id: rng.pick(p.members),
        body: `Comment ${k}`,
        noteable_type: onIssue ? 'Issue' : 'MergeRequest',
        noteable_id: onIssue ? rng.pick(p.issues) : rng.pick(p.mrs),
        system: false,
        attachment: null,
        created_at: END - SPAN,
        updated_at: END - SPAN,
      };
    }
  }
  const step = SPAN / Math.max(1, N);
  for (let i = 1; i <= N; i++) {
    const p = projects[rng.int(P)]!;
    const author = rng.pick(p.members);
    const at = Math.floor(END - SPAN + i * step);
    const base = {
      kind: 'event' as const,
      id: offsets.events + i,
      project_id: p.id,
      author_id: author,
      created_at: at,
    };
    const pick = <T>(list: T[]) => rng.pick(list);
    let action: Action;
    switch (rng.weighted(ACTION_WEIGHTS)) {
      case 'push': {
        const commits = syntheticCommits(rng, at, rng.chance(0.8) ? 1 : 1 + rng.int(5));
        yield {
          ...base,
          action: 'pushed',
          target_type: null,
          target_id: null,
          push: {
            ref: 'refs/heads/main',
            before: rng.sha(),
            after: commits.at(-1)!.id,
            commitCount: commits.length,
            commits,
          },
        };
        continue;
      }
      case 'issue':
        action = rng.pick(['created', 'closed', 'reopened', 'updated'] as const);
        yield { ...base, action, target_type: 'Issue', target_id: pick(p.issues), push: null };
        continue;
      case 'mr':
        action = rng.pick(['created', 'merged', 'approved', 'closed', 'updated'] as const);
        yield { ...base, action, target_type: 'MergeRequest', target_id: pick(p.mrs), push: null };
        continue;
      case 'note':
        yield {
          ...base,
          action: 'commented',
          target_type: 'Note',
          target_id: pick(p.notes),
          push: null,
        };
        continue;
      case 'milestone':
        action = rng.pick(['created', 'closed'] as const);
        yield {
          ...base,
          action,
          target_type: 'Milestone',
          target_id: pick(p.milestones),
          push: null,
        };
        continue;
      case 'member':
        action = rng.pick(['joined', 'left', 'expired'] as const);
        yield { ...base, action, target_type: null, target_id: null, push: null };
        continue;
      default:
        yield { ...base, action: 'created', target_type: null, target_id: null, push: null };
    }
  }
}

const MESSAGES = [
  'Fix bug',
  'Add feature',
  'Refactor module\n\nDetails follow.',
  'Update docs',
  'Bump deps',
];

function syntheticCommits(rng: Prng, at: number, count: number): PushCommit[] {
  const timestamp = new Date(at).toISOString().replace(/\.\d{3}Z$/, '+00:00');
  return Array.from({ length: count }, () => {
    const id = rng.sha();
    return {
      id,
      message: rng.pick(MESSAGES),
      timestamp,
      url: `http://127.0.0.1:3000/-/commit/${id}`,
      author: { name: 'Dev', email: 'dev@example.com' },
    };
  });
}

/** About how many records `syntheticRecords` yields (for progress and time left). */
export function estimateRecords(o: SyntheticOptions): number {
  const perProject = (n: number) => Math.max(1, Math.ceil(n / o.projects));
  const content = o.projects * (2 + 2 * perProject(o.events / 25) + perProject(o.events / 50));
  return o.users + o.projects * (2 + Math.min(o.users - 1, 8)) + content + o.events;
}
