/**
 * GitLab's permission table, walked: every role (anonymous, signed-in non-member, Guest, Reporter,
 * Developer, Maintainer, Owner, administrator, blocked) × every project visibility × every read
 * and write pulsegate serves on a project, over REST and GraphQL, on both dialects. One table
 * below holds the rule of each row, citing GitLab's (docs/permissions.md is the same table in
 * prose); one server per dialect, seeded once.
 *
 * What a refusal looks like follows from the rule and who asks: a blocked user's token is 403;
 * an anonymous write 401; a project the caller cannot read 404 (`404 Project Not Found`, never
 * 403: no oracle); an object hidden from a reader 404 (a private project's merge requests from its
 * guests); otherwise 403, or 401 where GitLab's REST answers so (merge, approve).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ACCESS_LEVELS } from '../../src/domain/vocabulary.js';
import { raw } from '../graphql/client.js';
import { DIALECTS } from '../helpers/server.js';
import { type Actors, api, startWithUsers } from './helpers.js';

type Visibility = 'public' | 'internal' | 'private';
const VISIBILITIES: Visibility[] = ['public', 'internal', 'private'];

const ROLES = [
  'anonymous',
  'outsider',
  'guest',
  'reporter',
  'developer',
  'maintainer',
  'owner',
  'admin',
  'blocked',
] as const;
type Role = (typeof ROLES)[number];

/** A role's rank against a rule's minimum (admins and blocked users are decided apart). */
const RANK: Record<Role, number> = {
  anonymous: 0,
  outsider: 1,
  guest: ACCESS_LEVELS.guest,
  reporter: ACCESS_LEVELS.reporter,
  developer: ACCESS_LEVELS.developer,
  maintainer: ACCESS_LEVELS.maintainer,
  owner: ACCESS_LEVELS.owner,
  admin: 0,
  blocked: 0,
};

type Minimum = 'anonymous' | 'outsider' | 'guest' | 'reporter' | 'developer' | 'maintainer';

/** `read_project`: public to everyone, internal to signed-in users, private to members. */
const READ: Record<Visibility, Minimum> = {
  public: 'anonymous',
  internal: 'outsider',
  private: 'guest',
};
/** Anyone who reads the project, signed in (writes and hooks need a user). */
const SIGNED_READ: Record<Visibility, Minimum> = {
  public: 'outsider',
  internal: 'outsider',
  private: 'guest',
};
/** Merge requests: as the project, but Reporter in a private one. */
const MR_READ: Record<Visibility, Minimum> = { ...READ, private: 'reporter' };
const MR_NOTE: Record<Visibility, Minimum> = { ...SIGNED_READ, private: 'reporter' };
const at = (min: Minimum): Record<Visibility, Minimum> => ({
  public: min,
  internal: min,
  private: min,
});

type Outcome = 'ok' | 'unauthenticated' | 'not_found' | 'forbidden' | 'unauthorized' | 'blocked';

interface Cell {
  role: Role;
  visibility: Visibility;
  project: number;
  fullPath: string;
}

interface Request {
  method: string;
  path: string;
  body?: unknown;
}

interface Row {
  name: string;
  /** GitLab's rule this row follows. */
  rule: string;
  write: boolean;
  min: Record<Visibility, Minimum>;
  /** What a reader of the project who falls short gets: 403 unless said otherwise. */
  refused?: (cell: Cell) => Outcome;
  /** REST: the request (after whatever it needs is made by the Owner), and its success status. */
  rest?: { ok: number; request: (cell: Cell) => Promise<Request> | Request };
  /** The scope of the token the row's REST request carries: `api` unless said otherwise. */
  scope?: 'write_repository';
  /** GraphQL: the operation, answered 200 with data or with a GraphQL error code. */
  graphql?: (cell: Cell) => Promise<{ query: string; variables?: unknown }>;
}

/** Below Reporter in a private project, a merge request does not exist (404). */
const hiddenMergeRequest = (refusal: Outcome) => (cell: Cell) =>
  cell.visibility === 'private' && RANK[cell.role] < ACCESS_LEVELS.reporter ? 'not_found' : refusal;

/** REST: a GET of the project's own path followed by `path`, answered 200. */
const readOf = (path: string): NonNullable<Row['rest']> => ({
  ok: 200,
  request: (c) => ({ method: 'GET', path: `/projects/${c.project}${path}` }),
});

for (const dialect of DIALECTS) {
  describe(`GitLab's permission table (${dialect})`, () => {
    let a: Actors;
    const projects = {} as Record<Visibility, { id: number; fullPath: string }>;
    let seq = 0;
    const unique = (prefix: string) => `${prefix}-${++seq}`;
    const owner = () => a.tokens.owner!;
    const asOwner = async (method: string, path: string, body?: unknown) => {
      const res = await api(a.server, method, path, owner(), body);
      assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${res.text}`);
      return res.body as Record<string, unknown>;
    };
    const newMergeRequest = async (cell: Cell) =>
      (await asOwner('POST', `/projects/${cell.project}/merge_requests`, {
        source_branch: unique('topic'),
        target_branch: 'main',
        title: 'To merge',
      })) as { iid: number; id: number };
    const gid = (type: string, id: number) => `gid://gitlab/${type}/${id}`;
    /** A new title, by the cell's role, for the project's first issue or merge request. */
    const editTitleOf = (
      path: 'issues' | 'merge_requests',
      mutation: 'updateIssue' | 'mergeRequestUpdate',
    ): Pick<Row, 'rest' | 'graphql'> => ({
      rest: {
        ok: 200,
        request: (c) => ({
          method: 'PUT',
          path: `/projects/${c.project}/${path}/1`,
          body: { title: `Edited by ${c.role}` },
        }),
      },
      graphql: async (c) => ({
        query: `mutation { ${mutation}(input: { projectPath: "${c.fullPath}", iid: "1", title: "Edited by ${c.role}" }) { errors } }`,
      }),
    });
    /** A comment by the cell's role on the project's first issue or merge request. */
    const commentOn = (
      path: 'issues' | 'merge_requests',
      type: 'Issue' | 'MergeRequest',
    ): Pick<Row, 'rest' | 'graphql'> => ({
      rest: {
        ok: 201,
        request: (c) => ({
          method: 'POST',
          path: `/projects/${c.project}/${path}/1/notes`,
          body: { body: `From ${c.role}` },
        }),
      },
      graphql: async (c) => {
        const { id } = (await asOwner('GET', `/projects/${c.project}/${path}/1`)) as {
          id: number;
        };
        return {
          query: `mutation { createNote(input: { noteableId: "${gid(type, id)}", body: "From ${c.role}" }) { errors } }`,
        };
      },
    });

    const TABLE: Row[] = [
      {
        name: 'read the project',
        rule: 'read_project: public to all, internal to signed-in users, private to members',
        write: false,
        min: READ,
        rest: readOf(''),
        graphql: async (c) => ({ query: `{ project(fullPath: "${c.fullPath}") { name } }` }),
      },
      {
        name: "list the project's events",
        rule: 'read_project; each event as its target allows (GitLab Event#visible_to_user?)',
        write: false,
        min: READ,
        rest: readOf('/events'),
        graphql: async (c) => ({
          query: `{ project(fullPath: "${c.fullPath}") { events(first: 5) { nodes { id } } } }`,
        }),
      },
      {
        name: 'list issues',
        rule: 'read_issue: whoever reads the project (Guest in private ones)',
        write: false,
        min: READ,
        rest: readOf('/issues'),
      },
      {
        name: 'read an issue',
        rule: 'read_issue',
        write: false,
        min: READ,
        rest: readOf('/issues/1'),
      },
      {
        name: "list an issue's notes",
        rule: 'read_note follows read_issue',
        write: false,
        min: READ,
        rest: readOf('/issues/1/notes'),
      },
      {
        name: 'list merge requests',
        rule: 'read_merge_request: Reporter in private projects; on public and internal ones the Guest role is not enforced',
        write: false,
        min: MR_READ,
        rest: readOf('/merge_requests'),
      },
      {
        name: 'read a merge request',
        rule: 'read_merge_request (hidden: 404)',
        write: false,
        min: MR_READ,
        refused: hiddenMergeRequest('forbidden'),
        rest: readOf('/merge_requests/1'),
        graphql: async (c) => {
          const { id } = (await asOwner('GET', `/projects/${c.project}/merge_requests/1`)) as {
            id: number;
          };
          return { query: `{ node(id: "${gid('MergeRequest', id)}") { id } }` };
        },
      },
      {
        name: "list a merge request's notes",
        rule: 'read_note follows read_merge_request',
        write: false,
        min: MR_READ,
        refused: hiddenMergeRequest('forbidden'),
        rest: readOf('/merge_requests/1/notes'),
      },
      {
        name: "read a merge request's approvals",
        rule: 'read_merge_request',
        write: false,
        min: MR_READ,
        refused: hiddenMergeRequest('forbidden'),
        rest: readOf('/merge_requests/1/approvals'),
      },
      {
        name: 'list milestones',
        rule: 'read_milestone: whoever reads the project',
        write: false,
        min: READ,
        rest: readOf('/milestones'),
      },
      {
        name: 'list members',
        rule: 'read_project_member: whoever reads the project',
        write: false,
        min: READ,
        rest: readOf('/members'),
      },
      {
        name: 'read a member',
        rule: 'read_project_member',
        write: false,
        min: READ,
        rest: {
          ok: 200,
          request: (c) => ({
            method: 'GET',
            path: `/projects/${c.project}/members/${a.ids.owner}`,
          }),
        },
      },
      {
        name: 'list hooks',
        rule: 'admin_project (webhooks): Maintainer',
        write: false,
        min: at('maintainer'),
        rest: readOf('/hooks'),
      },
      {
        name: 'read a hook',
        rule: 'admin_project: Maintainer',
        write: false,
        min: at('maintainer'),
        rest: {
          ok: 200,
          request: (c) => ({ method: 'GET', path: `/projects/${c.project}/hooks/${hookOf(c)}` }),
        },
      },
      {
        name: 'open an issue',
        rule: 'create_issue: any signed-in reader (Guest in private projects)',
        write: true,
        min: SIGNED_READ,
        rest: {
          ok: 201,
          request: (c) => ({
            method: 'POST',
            path: `/projects/${c.project}/issues`,
            body: { title: `By ${c.role}` },
          }),
        },
        graphql: async (c) => ({
          query: `mutation { createIssue(input: { projectPath: "${c.fullPath}", title: "By ${c.role}" }) { errors } }`,
        }),
      },
      {
        name: "edit someone else's issue",
        rule: 'update_issue (admin_issue): Reporter (Planner); an author edits their own',
        write: true,
        min: at('reporter'),
        ...editTitleOf('issues', 'updateIssue'),
      },
      {
        name: 'comment on an issue',
        rule: 'create_note: any signed-in reader of the issue',
        write: true,
        min: SIGNED_READ,
        ...commentOn('issues', 'Issue'),
      },
      {
        name: 'open a merge request',
        rule: 'create_merge_request_in: Developer',
        write: true,
        min: at('developer'),
        rest: {
          ok: 201,
          request: (c) => ({
            method: 'POST',
            path: `/projects/${c.project}/merge_requests`,
            body: { source_branch: unique('branch'), target_branch: 'main', title: c.role },
          }),
        },
        graphql: async (c) => ({
          query: `mutation { mergeRequestCreate(input: { projectPath: "${c.fullPath}", sourceBranch: "${unique('gql')}", targetBranch: "main", title: "${c.role}" }) { errors } }`,
        }),
      },
      {
        name: 'edit a merge request',
        rule: 'update_merge_request: Developer (read_merge_request first)',
        write: true,
        min: at('developer'),
        refused: hiddenMergeRequest('forbidden'),
        ...editTitleOf('merge_requests', 'mergeRequestUpdate'),
      },
      {
        name: 'comment on a merge request',
        rule: 'create_note on a readable merge request: Reporter in private projects',
        write: true,
        min: MR_NOTE,
        refused: hiddenMergeRequest('forbidden'),
        ...commentOn('merge_requests', 'MergeRequest'),
      },
      {
        name: 'merge a merge request',
        rule: 'accept_merge_request: Developer (GitLab REST answers 401 to others)',
        write: true,
        min: at('developer'),
        refused: hiddenMergeRequest('unauthorized'),
        rest: {
          ok: 200,
          request: async (c) => ({
            method: 'PUT',
            path: `/projects/${c.project}/merge_requests/${(await newMergeRequest(c)).iid}/merge`,
          }),
        },
        graphql: async (c) => ({
          query: `mutation { mergeRequestAccept(input: { projectPath: "${c.fullPath}", iid: "${(await newMergeRequest(c)).iid}" }) { errors } }`,
        }),
      },
      {
        name: 'approve a merge request',
        rule: 'approve_merge_request: Developer, once each (GitLab REST answers 401 to others)',
        write: true,
        min: at('developer'),
        refused: hiddenMergeRequest('unauthorized'),
        rest: {
          ok: 201,
          request: (c) => ({
            method: 'POST',
            path: `/projects/${c.project}/merge_requests/1/approve`,
          }),
        },
      },
      {
        name: 'create a milestone',
        rule: 'admin_milestone: Reporter (Planner)',
        write: true,
        min: at('reporter'),
        rest: {
          ok: 201,
          request: (c) => ({
            method: 'POST',
            path: `/projects/${c.project}/milestones`,
            body: { title: unique('milestone') },
          }),
        },
      },
      {
        name: 'edit a milestone',
        rule: 'admin_milestone: Reporter',
        write: true,
        min: at('reporter'),
        rest: {
          ok: 200,
          request: (c) => ({
            method: 'PUT',
            path: `/projects/${c.project}/milestones/${milestoneOf(c)}`,
            body: { description: `By ${c.role}` },
          }),
        },
      },
      {
        name: 'delete a milestone',
        rule: 'admin_milestone: Reporter',
        write: true,
        min: at('reporter'),
        rest: {
          ok: 204,
          request: async (c) => {
            const made = await asOwner('POST', `/projects/${c.project}/milestones`, {
              title: unique('doomed'),
            });
            return { method: 'DELETE', path: `/projects/${c.project}/milestones/${made.id}` };
          },
        },
      },
      {
        name: 'add a member',
        rule: 'admin_project_member: Maintainer (Owner to grant Owner)',
        write: true,
        min: at('maintainer'),
        rest: {
          ok: 201,
          request: async (c) => {
            const user = await a.fx.user(unique('newcomer'));
            return {
              method: 'POST',
              path: `/projects/${c.project}/members`,
              body: { user_id: user.id, access_level: ACCESS_LEVELS.guest },
            };
          },
        },
      },
      {
        name: 'remove a member',
        rule: 'admin_project_member: Maintainer (Owners only by Owners; never the last)',
        write: true,
        min: at('maintainer'),
        rest: {
          ok: 204,
          request: async (c) => {
            const user = await a.fx.user(unique('leaver'));
            await a.fx.member(c.project, user.id, ACCESS_LEVELS.guest);
            return { method: 'DELETE', path: `/projects/${c.project}/members/${user.id}` };
          },
        },
      },
      {
        name: 'add a hook',
        rule: 'admin_project (webhooks): Maintainer',
        write: true,
        min: at('maintainer'),
        rest: {
          ok: 201,
          request: (c) => ({
            method: 'POST',
            path: `/projects/${c.project}/hooks`,
            body: { url: `http://127.0.0.1:9/${unique('hook')}` },
          }),
        },
      },
      {
        name: 'edit a hook',
        rule: 'admin_project: Maintainer',
        write: true,
        min: at('maintainer'),
        rest: {
          ok: 200,
          request: (c) => ({
            method: 'PUT',
            path: `/projects/${c.project}/hooks/${hookOf(c)}`,
            // GitLab requires the URL on every edit; the same one keeps the hook's token.
            body: { url: 'http://127.0.0.1:9/kept', push_events: false },
          }),
        },
      },
      {
        name: 'test a hook',
        rule: 'admin_project: Maintainer',
        write: true,
        min: at('maintainer'),
        rest: {
          ok: 201,
          request: (c) => ({
            method: 'POST',
            path: `/projects/${c.project}/hooks/${hookOf(c)}/test/issues_events`,
          }),
        },
      },
      {
        name: 'delete a hook',
        rule: 'admin_project: Maintainer',
        write: true,
        min: at('maintainer'),
        rest: {
          ok: 204,
          request: async (c) => {
            const made = await asOwner('POST', `/projects/${c.project}/hooks`, {
              url: `http://127.0.0.1:9/${unique('doomed')}`,
            });
            return { method: 'DELETE', path: `/projects/${c.project}/hooks/${made.id}` };
          },
        },
      },
      {
        name: 'record a push',
        rule: 'push_code: Developer, with a push token (docs/pushes.md)',
        write: true,
        scope: 'write_repository',
        min: at('developer'),
        rest: {
          ok: 201,
          request: (c) => ({
            method: 'POST',
            path: `/projects/${c.project}/pushes`,
            body: {
              changes: [
                {
                  before: '0'.repeat(40),
                  after: 'a'.repeat(40),
                  ref: `refs/heads/${unique('push')}`,
                  commits: [],
                  total_commits_count: 0,
                },
              ],
            },
          }),
        },
      },
    ];

    /** The hook and the milestone every cell's reads and edits use, per project. */
    const hooks = new Map<number, number>();
    const milestones = new Map<number, number>();
    const hookOf = (c: Cell) => hooks.get(c.project)!;
    /** Each role's push token (scope write_repository), for the rows that record pushes. */
    const pushTokens: Record<string, string> = {};
    const milestoneOf = (c: Cell) => milestones.get(c.project)!;

    before(async () => {
      a = await startWithUsers(
        dialect,
        ['owner', 'outsider', 'guest', 'reporter', 'developer', 'maintainer', 'root', 'blocked'],
        // Hooks point at a closed local port: deliveries fail quietly, nothing leaves the machine.
        { webhooksAllowLocal: true },
      );
      await a.server.store.db
        .updateTable('users')
        .set({ state: 'blocked' })
        .where('id', '=', a.ids.blocked!)
        .execute();
      a.tokens.admin = a.tokens.root!;
      for (const [role, id] of Object.entries(a.ids)) {
        pushTokens[role === 'root' ? 'admin' : role] = await a.fx.token(id, ['write_repository']);
      }
      for (const visibility of VISIBILITIES) {
        const made = await asOwner('POST', '/projects', {
          path: `table-${visibility}`,
          visibility,
        });
        const id = made.id as number;
        projects[visibility] = { id, fullPath: made.path_with_namespace as string };
        for (const role of ['guest', 'reporter', 'developer', 'maintainer', 'blocked'] as const) {
          const level = role === 'blocked' ? ACCESS_LEVELS.developer : RANK[role];
          await a.fx.member(id, a.ids[role]!, level);
        }
        await asOwner('POST', `/projects/${id}/issues`, { title: 'The issue' });
        await asOwner('POST', `/projects/${id}/merge_requests`, {
          source_branch: 'feature',
          target_branch: 'main',
          title: 'The merge request',
        });
        const milestone = await asOwner('POST', `/projects/${id}/milestones`, { title: 'v1' });
        milestones.set(id, milestone.id as number);
        const hook = await asOwner('POST', `/projects/${id}/hooks`, {
          url: 'http://127.0.0.1:9/kept',
        });
        hooks.set(id, hook.id as number);
      }
    });
    after(() => a.server.close());

    /** What GitLab's rule says this cell gets. */
    function expected(row: Row, cell: Cell): Outcome {
      const { role, visibility } = cell;
      if (role === 'blocked') return 'blocked';
      if (role === 'admin') return 'ok';
      const minimum = row.min[visibility];
      if (RANK[role] >= RANK[minimum]) return 'ok';
      // Writes, and reads only users may make (hooks), ask who is calling first.
      if (role === 'anonymous' && (row.write || row.min.public !== 'anonymous')) {
        return 'unauthenticated';
      }
      if (RANK[role] < RANK[READ[visibility]]) return 'not_found';
      return row.refused ? row.refused(cell) : 'forbidden';
    }

    const REST_STATUS: Record<Exclude<Outcome, 'ok'>, number> = {
      unauthenticated: 401,
      not_found: 404,
      forbidden: 403,
      unauthorized: 401,
      blocked: 403,
    };
    /** GraphQL's codes for the same refusals (GitLab's 401 quirk is a permission error there). */
    const GRAPHQL_CODE: Record<Exclude<Outcome, 'ok' | 'blocked'>, string> = {
      unauthenticated: 'UNAUTHENTICATED',
      not_found: 'NOT_FOUND',
      forbidden: 'FORBIDDEN',
      unauthorized: 'FORBIDDEN',
    };

    function cells(): Cell[] {
      return VISIBILITIES.flatMap((visibility) =>
        ROLES.map((role) => ({
          role,
          visibility,
          project: projects[visibility].id,
          fullPath: projects[visibility].fullPath,
        })),
      );
    }

    it('answers every REST read and write as its row says, for every role and visibility', async () => {
      const wrong: string[] = [];
      let checked = 0;
      for (const row of TABLE) {
        if (!row.rest) continue;
        for (const cell of cells()) {
          const request = await row.rest.request(cell);
          const tokens = row.scope === 'write_repository' ? pushTokens : a.tokens;
          const token = cell.role === 'anonymous' ? undefined : tokens[cell.role];
          const res = await api(a.server, request.method, request.path, token, request.body);
          const outcome = expected(row, cell);
          const status = outcome === 'ok' ? row.rest.ok : REST_STATUS[outcome];
          checked++;
          if (res.status !== status) {
            wrong.push(
              `${row.name} [${row.rule}] as ${cell.role} in ${cell.visibility}: ${res.status} (${res.text.slice(0, 80)}), expected ${status}`,
            );
          } else if (outcome === 'not_found' && RANK[cell.role] < RANK[READ[cell.visibility]]) {
            if (JSON.stringify(res.body) !== '{"message":"404 Project Not Found"}') {
              wrong.push(`${row.name} as ${cell.role} in ${cell.visibility}: ${res.text}`);
            }
          }
        }
      }
      assert.deepEqual(wrong, []);
      assert.equal(checked, TABLE.filter((r) => r.rest).length * ROLES.length * 3);
    });

    it('answers every GraphQL query and mutation as its row says', async () => {
      const wrong: string[] = [];
      for (const row of TABLE) {
        if (!row.graphql) continue;
        for (const cell of cells()) {
          const { query, variables } = await row.graphql(cell);
          const token = cell.role === 'anonymous' ? undefined : a.tokens[cell.role];
          const res = await raw<Record<string, unknown>>(a.server.url, query, variables, {
            ...(token ? { token } : {}),
          });
          const outcome = expected(row, cell);
          const label = `${row.name} [${row.rule}] as ${cell.role} in ${cell.visibility}`;
          const code = res.body.errors?.[0]?.extensions?.code;
          const data = res.body.data ? Object.values(res.body.data)[0] : undefined;
          if (outcome === 'blocked') {
            if (res.status !== 403) wrong.push(`${label}: ${res.status}, expected 403`);
          } else if (outcome === 'ok') {
            const payloadErrors = (data as { errors?: string[] } | null)?.errors ?? [];
            if (code !== undefined || data === null || payloadErrors.length > 0) {
              wrong.push(`${label}: ${JSON.stringify(res.body).slice(0, 160)}, expected data`);
            }
          } else if (row.name === 'read a merge request') {
            // node(id:) answers null for what the viewer may not see, as GitLab does.
            if (code !== undefined || data !== null) {
              wrong.push(`${label}: ${JSON.stringify(res.body).slice(0, 160)}, expected null`);
            }
          } else if (code !== GRAPHQL_CODE[outcome]) {
            wrong.push(
              `${label}: ${JSON.stringify(res.body).slice(0, 160)}, expected ${GRAPHQL_CODE[outcome]}`,
            );
          }
        }
      }
      assert.deepEqual(wrong, []);
    });
  });
}
