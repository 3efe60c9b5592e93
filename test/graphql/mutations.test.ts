/**
 * GraphQL mutations, on both engines and both dialects: each mutation's exact payload and the
 * event it leaves (visible at once in `project { events }` and `events`), validation problems as
 * `errors` values with HTTP 200 (and nothing written), authorization failures as GraphQL errors,
 * mutations refused over GET, 50 concurrent `createIssue` on one project, and random inputs.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import {
  CreateIssueDocument,
  type CreateIssueMutation,
  CreateNoteDocument,
  MergeRequestAcceptDocument,
  MergeRequestCreateDocument,
  MergeRequestUpdateDocument,
  MyStoryDocument,
  ProjectStoryDocument,
  UpdateIssueDocument,
} from './generated/graphql.js';
import { toGlobalId } from '../../src/graphql/ids.js';
import { Fixtures } from '../helpers/fixtures.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';
import { ENGINES, type GqlResponse, codes, gql, raw } from './client.js';

/** The fixed clock of test servers, as `Time` prints it. */
const NOW = '2026-01-15T12:00:00.000Z';
const PROJECT = 'alice/rocket';
const VAULT = 'alice/vault';

interface World {
  server: TestServer;
  /** Scope `api` tokens by username; `readApi` is alice's `read_api` token. */
  tokens: Record<string, string>;
  ids: Record<string, number>;
}

/**
 * alice owns public alice/rocket (bob developer, carol guest) and private alice/vault; dave is
 * signed in but a member of neither.
 */
async function world(dialect: (typeof DIALECTS)[number], engine: string): Promise<World> {
  const server = await startServer({
    dialect,
    config: { graphqlEngine: engine as 'mercurius' | 'apollo' },
  });
  const fx = new Fixtures(server.store);
  const tokens: Record<string, string> = {};
  const ids: Record<string, number> = {};
  for (const name of ['alice', 'bob', 'carol', 'dave']) {
    const user = await fx.user(name);
    ids[name] = user.id;
    tokens[name] = await fx.token(user.id, ['api']);
  }
  tokens.readApi = await fx.token(ids.alice!, ['read_api']);
  const rocket = await fx.project(PROJECT, ids.alice!, 'public');
  await fx.member(rocket.id, ids.alice!, 50);
  await fx.member(rocket.id, ids.bob!, 30);
  await fx.member(rocket.id, ids.carol!, 10);
  const vault = await fx.project(VAULT, ids.alice!, 'private');
  await fx.member(vault.id, ids.alice!, 50);
  ids.rocket = rocket.id;
  ids.vault = vault.id;
  return { server, tokens, ids };
}

/** The project's events, oldest first, as "who action type iid". */
async function story(w: World, fullPath = PROJECT): Promise<string[]> {
  const res = await gql(
    w.server.url,
    ProjectStoryDocument,
    { fullPath, first: 100 },
    { token: w.tokens.alice! },
  );
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body
    .data!.project!.events!.nodes.map(
      (e) => `${e.author?.username} ${e.actionName} ${e.targetType ?? '-'} ${e.targetIid ?? '-'}`,
    )
    .reverse();
}

function ok<T>(res: GqlResponse<T>): T {
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.errors, undefined, JSON.stringify(res.body));
  return res.body.data!;
}

/** A GraphQL error answer: HTTP 200, `data` with the field null, one error with this code. */
function refused<T>(res: GqlResponse<T>, field: string, code: string, message: string): void {
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(res.body, {
    errors: [
      {
        message,
        locations: [{ line: 2, column: 3 }],
        path: [field],
        extensions: { code },
      },
    ],
    data: { [field]: null },
  });
}

for (const dialect of DIALECTS) {
  for (const engine of ENGINES) {
    describe(`GraphQL mutations (${engine}, ${dialect})`, () => {
      let w: World;
      let url: string;
      before(async () => {
        w = await world(dialect, engine);
        url = w.server.url;
      });
      after(() => w.server.close());

      it('createIssue: the issue, no errors, the client id echoed; "opened" in every listing', async () => {
        const data = ok(
          await gql(
            url,
            CreateIssueDocument,
            {
              input: {
                projectPath: PROJECT,
                title: 'Engine stalls',
                description: 'At T-3',
                clientMutationId: 'c-1',
              },
            },
            { token: w.tokens.bob! },
          ),
        );
        const issue = data.createIssue!.issue!;
        assert.deepEqual(data, {
          createIssue: {
            issue: {
              id: toGlobalId('Issue', issue.databaseId),
              databaseId: issue.databaseId,
              iid: 1,
              title: 'Engine stalls',
              description: 'At T-3',
              state: 'opened',
              confidential: false,
              projectId: w.ids.rocket,
              webUrl: `${url}/${PROJECT}/-/issues/1`,
              author: { username: 'bob' },
              createdAt: NOW,
              updatedAt: NOW,
              closedAt: null,
            },
            errors: [],
            clientMutationId: 'c-1',
          },
        });
        assert.deepEqual(await story(w), ['bob opened ISSUE 1']);
        const mine = ok(await gql(url, MyStoryDocument, { first: 5 }, { token: w.tokens.bob! }));
        assert.deepEqual(mine.events!.nodes, [
          {
            actionName: 'opened',
            targetType: 'ISSUE',
            targetIid: 1,
            project: { fullPath: PROJECT },
          },
        ]);
      });

      it('updateIssue: close and reopen write "closed"/"reopened"; an edit writes nothing', async () => {
        const close = ok(
          await gql(
            url,
            UpdateIssueDocument,
            { input: { projectPath: PROJECT, iid: '1', stateEvent: 'CLOSE' } },
            { token: w.tokens.alice! },
          ),
        ).updateIssue!;
        assert.equal(close.issue!.state, 'closed');
        assert.equal(close.issue!.closedAt, NOW);
        assert.deepEqual(close.errors, []);
        assert.equal(close.clientMutationId, null);
        // The author may edit and reopen their own issue, GitLab's rule (bob is a developer anyway).
        const edit = ok(
          await gql(
            url,
            UpdateIssueDocument,
            { input: { projectPath: PROJECT, iid: '1', title: 'Engine stalls at T-3' } },
            { token: w.tokens.bob! },
          ),
        ).updateIssue!;
        assert.equal(edit.issue!.title, 'Engine stalls at T-3');
        assert.equal(edit.issue!.description, 'At T-3');
        assert.equal(edit.issue!.state, 'closed');
        const reopen = ok(
          await gql(
            url,
            UpdateIssueDocument,
            { input: { projectPath: PROJECT, iid: '1', stateEvent: 'REOPEN' } },
            { token: w.tokens.bob! },
          ),
        ).updateIssue!;
        assert.equal(reopen.issue!.state, 'opened');
        assert.equal(reopen.issue!.closedAt, null);
        assert.deepEqual(await story(w), [
          'bob opened ISSUE 1',
          'alice closed ISSUE 1',
          'bob opened ISSUE 1',
        ]);
      });

      it('createNote on an issue by our id and by GitLab gid: "commented on" each time', async () => {
        const issue = ok(
          await gql(
            url,
            UpdateIssueDocument,
            { input: { projectPath: PROJECT, iid: '1' } },
            { token: w.tokens.alice! },
          ),
        ).updateIssue!.issue!;
        const ours = ok(
          await gql(
            url,
            CreateNoteDocument,
            { input: { noteableId: issue.id, body: 'Looking into it', clientMutationId: 'n' } },
            { token: w.tokens.carol! },
          ),
        ).createNote!;
        assert.deepEqual(ours, {
          note: {
            id: toGlobalId('Note', ours.note!.databaseId),
            databaseId: ours.note!.databaseId,
            body: 'Looking into it',
            system: false,
            noteableType: 'Issue',
            noteableId: issue.databaseId,
            noteableIid: 1,
            projectId: w.ids.rocket,
            author: { username: 'carol' },
            createdAt: NOW,
          },
          errors: [],
          clientMutationId: 'n',
        });
        const gitlab = ok(
          await gql(
            url,
            CreateNoteDocument,
            { input: { noteableId: `gid://gitlab/Issue/${issue.databaseId}`, body: 'Me too' } },
            { token: w.tokens.dave! },
          ),
        ).createNote!;
        assert.equal(gitlab.note!.body, 'Me too');
        assert.equal(gitlab.note!.author!.username, 'dave');
        const events = await story(w);
        // A note event's target_iid is the note's id, as on REST.
        assert.deepEqual(events.slice(-2), [
          `carol commented on NOTE ${ours.note!.databaseId}`,
          `dave commented on NOTE ${gitlab.note!.databaseId}`,
        ]);
        // The issue as any reader finds it by id: the new fields, its page resolved from the
        // project (not presented in this response before), the note touched its updatedAt.
        const found = await raw(
          url,
          `{ node(id: "${issue.id}") { ... on Issue { iid description state closedAt updatedAt webUrl } } }`,
          undefined,
          { token: w.tokens.dave! },
        );
        assert.deepEqual(found.body, {
          data: {
            node: {
              iid: 1,
              description: 'At T-3',
              state: 'opened',
              closedAt: null,
              updatedAt: NOW,
              webUrl: `${url}/${PROJECT}/-/issues/1`,
            },
          },
        });
      });

      it('merge requests: create, close, reopen, accept; a second accept is an errors value', async () => {
        const created = ok(
          await gql(
            url,
            MergeRequestCreateDocument,
            {
              input: {
                projectPath: PROJECT,
                title: 'Fix the engine',
                sourceBranch: 'fix-engine',
                targetBranch: 'main',
                description: 'Tightens the valve',
              },
            },
            { token: w.tokens.bob! },
          ),
        ).mergeRequestCreate!;
        const mr = created.mergeRequest!;
        assert.deepEqual(created, {
          mergeRequest: {
            id: toGlobalId('MergeRequest', mr.databaseId),
            databaseId: mr.databaseId,
            iid: 1,
            title: 'Fix the engine',
            description: 'Tightens the valve',
            state: 'opened',
            sourceBranch: 'fix-engine',
            targetBranch: 'main',
            projectId: w.ids.rocket,
            webUrl: `${url}/${PROJECT}/-/merge_requests/1`,
            author: { username: 'bob' },
            createdAt: NOW,
            updatedAt: NOW,
            closedAt: null,
            mergedAt: null,
          },
          errors: [],
          clientMutationId: null,
        });
        const closed = ok(
          await gql(
            url,
            MergeRequestUpdateDocument,
            { input: { projectPath: PROJECT, iid: '1', state: 'CLOSED' } },
            { token: w.tokens.alice! },
          ),
        ).mergeRequestUpdate!;
        assert.equal(closed.mergeRequest!.state, 'closed');
        assert.equal(closed.mergeRequest!.closedAt, NOW);
        const reopened = ok(
          await gql(
            url,
            MergeRequestUpdateDocument,
            {
              input: {
                projectPath: PROJECT,
                iid: '1',
                state: 'OPENED',
                title: 'Fix the engine valve',
                targetBranch: 'release',
              },
            },
            { token: w.tokens.alice! },
          ),
        ).mergeRequestUpdate!;
        assert.equal(reopened.mergeRequest!.state, 'opened');
        assert.equal(reopened.mergeRequest!.title, 'Fix the engine valve');
        assert.equal(reopened.mergeRequest!.targetBranch, 'release');
        const note = ok(
          await gql(
            url,
            CreateNoteDocument,
            { input: { noteableId: mr.id, body: 'LGTM' } },
            { token: w.tokens.alice! },
          ),
        ).createNote!;
        assert.equal(note.note!.noteableType, 'MergeRequest');
        assert.equal(note.note!.noteableIid, 1);
        const merged = ok(
          await gql(
            url,
            MergeRequestAcceptDocument,
            { input: { projectPath: PROJECT, iid: '1', clientMutationId: 'm' } },
            { token: w.tokens.alice! },
          ),
        ).mergeRequestAccept!;
        assert.equal(merged.mergeRequest!.state, 'merged');
        assert.equal(merged.mergeRequest!.mergedAt, NOW);
        assert.deepEqual(merged.errors, []);
        assert.equal(merged.clientMutationId, 'm');
        const again = await gql(
          url,
          MergeRequestAcceptDocument,
          { input: { projectPath: PROJECT, iid: '1', clientMutationId: 'm2' } },
          { token: w.tokens.alice! },
        );
        assert.deepEqual(again.body, {
          data: {
            mergeRequestAccept: {
              mergeRequest: null,
              errors: ['This branch cannot be merged'],
              clientMutationId: 'm2',
            },
          },
        });
        // A merged merge request stays merged: "reopening" it changes nothing.
        const stays = ok(
          await gql(
            url,
            MergeRequestUpdateDocument,
            { input: { projectPath: PROJECT, iid: '1', state: 'OPENED' } },
            { token: w.tokens.alice! },
          ),
        ).mergeRequestUpdate!;
        assert.equal(stays.mergeRequest!.state, 'merged');
        const events = await story(w);
        assert.deepEqual(events.slice(-5), [
          'bob opened MERGE_REQUEST 1',
          'alice closed MERGE_REQUEST 1',
          'alice opened MERGE_REQUEST 1',
          `alice commented on NOTE ${note.note!.databaseId}`,
          'alice accepted MERGE_REQUEST 1',
        ]);
        // The newest event's target carries the new fields too (the page from the event's project).
        const target = await raw(
          url,
          `{ project(fullPath: "${PROJECT}") { events(first: 1) { nodes { target { ... on MergeRequest { id state sourceBranch targetBranch mergedAt description webUrl } } } } } }`,
          undefined,
          { token: w.tokens.carol! },
        );
        assert.deepEqual(target.body, {
          data: {
            project: {
              events: {
                nodes: [
                  {
                    target: {
                      id: mr.id,
                      state: 'merged',
                      sourceBranch: 'fix-engine',
                      targetBranch: 'release',
                      mergedAt: NOW,
                      description: 'Tightens the valve',
                      webUrl: `${url}/${PROJECT}/-/merge_requests/1`,
                    },
                  },
                ],
              },
            },
          },
        });
      });

      it('validation problems: in errors with HTTP 200 and the object null; nothing written', async () => {
        const before = await story(w);
        const cases: Array<[string, unknown, string, string[]]> = [
          [
            CREATE_ISSUE,
            { projectPath: PROJECT, title: '   ' },
            'createIssue',
            ["Title can't be blank"],
          ],
          [
            CREATE_ISSUE,
            { projectPath: PROJECT, title: 'x'.repeat(256) },
            'createIssue',
            ['Title is too long (maximum is 255 characters)'],
          ],
          [
            UPDATE_ISSUE,
            { projectPath: PROJECT, iid: '1', title: '', stateEvent: 'CLOSE' },
            'updateIssue',
            ["Title can't be blank"],
          ],
          [
            CREATE_MR,
            { projectPath: PROJECT, title: '', sourceBranch: 'a..b', targetBranch: 'main' },
            'mergeRequestCreate',
            ["Title can't be blank", 'Source branch is invalid'],
          ],
          [
            CREATE_MR,
            { projectPath: PROJECT, title: 'Same', sourceBranch: 'main', targetBranch: 'main' },
            'mergeRequestCreate',
            ["You can't use same project/branch for source and target"],
          ],
          [
            UPDATE_MR,
            { projectPath: PROJECT, iid: '1', targetBranch: 'bad branch' },
            'mergeRequestUpdate',
            ['Target branch is invalid'],
          ],
        ];
        for (const [query, input, field, errors] of cases) {
          const res = await raw(
            url,
            query,
            { input: { ...(input as object), clientMutationId: 'v' } },
            {
              token: w.tokens.alice!,
            },
          );
          const key = field.startsWith('mergeRequest') ? 'mergeRequest' : 'issue';
          assert.equal(res.status, 200, field);
          assert.deepEqual(
            res.body,
            { data: { [field]: { [key]: null, errors, clientMutationId: 'v' } } },
            JSON.stringify(input),
          );
        }
        // A second open merge request for the same branches: GitLab's message, in errors.
        const first = await raw(
          url,
          CREATE_MR,
          {
            input: {
              projectPath: PROJECT,
              title: 'One',
              sourceBranch: 'twin',
              targetBranch: 'main',
            },
          },
          { token: w.tokens.alice! },
        );
        assert.equal(
          (first.body.data as { mergeRequestCreate: { errors: string[] } }).mergeRequestCreate
            .errors.length,
          0,
        );
        const second = await raw(
          url,
          CREATE_MR,
          {
            input: {
              projectPath: PROJECT,
              title: 'Two',
              sourceBranch: 'twin',
              targetBranch: 'main',
            },
          },
          { token: w.tokens.alice! },
        );
        assert.deepEqual(second.body, {
          data: {
            mergeRequestCreate: {
              mergeRequest: null,
              errors: ['Another open merge request already exists for this source branch: !2'],
              clientMutationId: null,
            },
          },
        });
        const issueId = toGlobalId('Issue', await issueDatabaseId(w, 1));
        const blank = await gql(
          url,
          CreateNoteDocument,
          { input: { noteableId: issueId, body: ' \n ' } },
          { token: w.tokens.alice! },
        );
        assert.deepEqual(blank.body, {
          data: {
            createNote: { note: null, errors: ["Note can't be blank"], clientMutationId: null },
          },
        });
        // Only the one valid merge request left an event; the issue kept its title and state.
        assert.deepEqual(await story(w), [...before, 'alice opened MERGE_REQUEST 2']);
        const issue = ok(
          await gql(
            url,
            UpdateIssueDocument,
            { input: { projectPath: PROJECT, iid: '1' } },
            { token: w.tokens.alice! },
          ),
        ).updateIssue!.issue!;
        assert.equal(issue.title, 'Engine stalls at T-3');
        assert.equal(issue.state, 'opened');
      });

      it('who may: anonymous 401, read_api and guests FORBIDDEN, unreadable NOT_FOUND (GraphQL errors)', async () => {
        const before = await story(w);
        const input = { projectPath: PROJECT, title: 'Nope' };
        refused(
          await raw(url, CREATE_ISSUE, { input }),
          'createIssue',
          'UNAUTHENTICATED',
          '401 Unauthorized',
        );
        refused(
          await raw(url, CREATE_ISSUE, { input }, { token: w.tokens.readApi! }),
          'createIssue',
          'FORBIDDEN',
          'The request requires higher privileges than provided by the access token. Accepted scopes: api.',
        );
        // The same token still reads.
        assert.equal(
          (await raw(url, '{ currentUser { username } }', undefined, { token: w.tokens.readApi! }))
            .status,
          200,
        );
        refused(
          await raw(
            url,
            CREATE_ISSUE,
            { input: { ...input, projectPath: VAULT } },
            { token: w.tokens.dave! },
          ),
          'createIssue',
          'NOT_FOUND',
          '404 Project Not Found',
        );
        refused(
          await raw(
            url,
            CREATE_ISSUE,
            { input: { ...input, projectPath: 'nobody/nothing' } },
            { token: w.tokens.alice! },
          ),
          'createIssue',
          'NOT_FOUND',
          '404 Project Not Found',
        );
        refused(
          await raw(
            url,
            UPDATE_ISSUE,
            { input: { projectPath: PROJECT, iid: '99', stateEvent: 'CLOSE' } },
            { token: w.tokens.alice! },
          ),
          'updateIssue',
          'NOT_FOUND',
          '404 Issue Not Found',
        );
        refused(
          await raw(
            url,
            UPDATE_ISSUE,
            { input: { projectPath: PROJECT, iid: '1e3' } },
            { token: w.tokens.alice! },
          ),
          'updateIssue',
          'NOT_FOUND',
          '404 Issue Not Found',
        );
        // A guest who did not open the issue may not close it; dave (no member) neither.
        for (const who of ['carol', 'dave']) {
          refused(
            await raw(
              url,
              UPDATE_ISSUE,
              { input: { projectPath: PROJECT, iid: '1', stateEvent: 'CLOSE' } },
              { token: w.tokens[who]! },
            ),
            'updateIssue',
            'FORBIDDEN',
            '403 Forbidden',
          );
        }
        refused(
          await raw(
            url,
            CREATE_MR,
            {
              input: { projectPath: PROJECT, title: 'G', sourceBranch: 'g', targetBranch: 'main' },
            },
            { token: w.tokens.carol! },
          ),
          'mergeRequestCreate',
          'FORBIDDEN',
          '403 Forbidden',
        );
        // REST answers 401 here (GitLab's quirk); GraphQL knows who asks: FORBIDDEN.
        refused(
          await raw(
            url,
            ACCEPT_MR,
            { input: { projectPath: PROJECT, iid: '2' } },
            { token: w.tokens.carol! },
          ),
          'mergeRequestAccept',
          'FORBIDDEN',
          '403 Forbidden',
        );
        refused(
          await raw(
            url,
            ACCEPT_MR,
            { input: { projectPath: PROJECT, iid: '77' } },
            { token: w.tokens.alice! },
          ),
          'mergeRequestAccept',
          'NOT_FOUND',
          '404 Merge Request Not Found',
        );
        // A confidential issue is NOT_FOUND to those who may not read it, also by id.
        const secret = ok(
          await gql(
            url,
            CreateIssueDocument,
            { input: { projectPath: PROJECT, title: 'Secret', confidential: true } },
            { token: w.tokens.alice! },
          ),
        ).createIssue!.issue!;
        assert.equal(secret.confidential, true);
        for (const id of [secret.id, `gid://gitlab/Issue/${secret.databaseId}`]) {
          refused(
            await raw(
              url,
              CREATE_NOTE,
              { input: { noteableId: id, body: 'peek' } },
              { token: w.tokens.dave! },
            ),
            'createNote',
            'NOT_FOUND',
            '404 Issue Not Found',
          );
        }
        refused(
          await raw(
            url,
            CREATE_NOTE,
            { input: { noteableId: toGlobalId('MergeRequest', 999_999), body: 'x' } },
            { token: w.tokens.alice! },
          ),
          'createNote',
          'NOT_FOUND',
          '404 Merge Request Not Found',
        );
        refused(
          await raw(url, CREATE_NOTE, { input: { noteableId: secret.id, body: 'x' } }),
          'createNote',
          'UNAUTHENTICATED',
          '401 Unauthorized',
        );
        assert.deepEqual(await story(w), [...before, 'alice opened ISSUE ' + secret.iid]);
      });

      it('a malformed or wrong-type noteableId is refused before execution (400)', async () => {
        for (const [value, words] of [
          ['abc', '"abc" is not a valid global id'],
          [toGlobalId('Project', w.ids.rocket!), 'does not represent an instance of Noteable'],
          ['gid://gitlab/User/1', 'does not represent an instance of Noteable'],
        ] as const) {
          const res = await raw(
            url,
            CREATE_NOTE,
            { input: { noteableId: value, body: 'x' } },
            { token: w.tokens.alice! },
          );
          assert.equal(res.status, 400, JSON.stringify(res.body));
          assert.deepEqual(codes(res.body), ['BAD_USER_INPUT']);
          assert.ok(res.body.errors![0]!.message.includes(words), res.body.errors![0]!.message);
          const literal = await raw(
            url,
            `mutation { createNote(input: {noteableId: ${JSON.stringify(value)}, body: "x"}) { errors } }`,
            undefined,
            { token: w.tokens.alice! },
          );
          assert.equal(literal.status, 400, JSON.stringify(literal.body));
          assert.deepEqual(codes(literal.body), ['GRAPHQL_VALIDATION_FAILED']);
          assert.ok(
            literal.body.errors![0]!.message.includes(words),
            literal.body.errors![0]!.message,
          );
        }
      });

      it('a null byte in any string is refused (400) before execution (PostgreSQL cannot store it)', async () => {
        const before = await story(w);
        const res = await raw(
          url,
          CREATE_ISSUE,
          { input: { projectPath: PROJECT, title: 'a\u0000b' } },
          { token: w.tokens.alice! },
        );
        assert.equal(res.status, 400);
        assert.deepEqual(res.body, {
          errors: [
            {
              message: 'Strings must not contain null bytes (\\u0000).',
              extensions: { code: 'BAD_USER_INPUT' },
            },
          ],
        });
        const literal = await raw(
          url,
          `mutation { createIssue(input: {projectPath: "${PROJECT}", title: "a\\u0000b"}) { errors } }`,
          undefined,
          { token: w.tokens.alice! },
        );
        assert.equal(literal.status, 400);
        assert.deepEqual(codes(literal.body), ['GRAPHQL_VALIDATION_FAILED']);
        assert.equal(
          literal.body.errors![0]!.message,
          'Strings must not contain null bytes (\\u0000).',
        );
        assert.deepEqual(await story(w), before);
      });

      it('Idempotency-Key: a retry gets the first answer back and writes nothing again', async () => {
        const before = await story(w);
        const send = (title: string, key = 'retry-1') =>
          raw(
            url,
            CREATE_ISSUE,
            { input: { projectPath: PROJECT, title, clientMutationId: 'i' } },
            { token: w.tokens.bob!, headers: { 'Idempotency-Key': key } },
          );
        const first = await send('Once only');
        assert.equal(first.status, 200);
        assert.equal(first.headers.get('idempotent-replayed'), null);
        const created = (first.body.data as CreateIssueMutation).createIssue!;
        assert.equal(created.issue!.title, 'Once only');
        const again = await send('Once only');
        assert.equal(again.status, 200);
        assert.equal(again.headers.get('idempotent-replayed'), 'true');
        assert.deepEqual(again.body, first.body);
        assert.deepEqual(await story(w), [...before, `bob opened ISSUE ${created.issue!.iid}`]);
        // The same key on another request is a client bug; nothing is written.
        const other = await send('Something else');
        assert.deepEqual(other.body, {
          data: {
            createIssue: {
              issue: null,
              errors: ['Idempotency-Key was already used for a different request'],
              clientMutationId: 'i',
            },
          },
        });
        // One key, one stored answer: a document with two mutation fields is refused.
        const two = await raw(
          url,
          'mutation { a: createIssue(input: {projectPath: "x", title: "a"}) { errors } b: createIssue(input: {projectPath: "x", title: "b"}) { errors } }',
          undefined,
          { token: w.tokens.bob!, headers: { 'Idempotency-Key': 'two' } },
        );
        assert.equal(two.status, 400);
        assert.deepEqual(two.body, {
          errors: [
            {
              message: 'An Idempotency-Key covers one mutation: send exactly one mutation field.',
              extensions: { code: 'BAD_REQUEST' },
            },
          ],
        });
        assert.deepEqual(await story(w), [...before, `bob opened ISSUE ${created.issue!.iid}`]);
      });

      it('mutations over GET are refused (405) and write nothing', async () => {
        const before = await story(w);
        const query = `mutation { createIssue(input: {projectPath: "${PROJECT}", title: "By GET"}) { errors } }`;
        const res = await fetch(
          `${url}/api/graphql?query=${encodeURIComponent(query)}&private_token=${w.tokens.alice}`,
        );
        assert.equal(res.status, 405);
        assert.deepEqual(await res.json(), {
          errors: [
            { message: 'Only queries can be sent with GET.', extensions: { code: 'BAD_REQUEST' } },
          ],
        });
        assert.deepEqual(await story(w), before);
      });

      it('50 parallel createIssue on one project: 50 distinct consecutive iids and 50 events', async () => {
        const path = 'alice/busy';
        const fx = new Fixtures(w.server.store);
        const busy = await fx.project(path, w.ids.alice!, 'public');
        await fx.member(busy.id, w.ids.alice!, 50);
        const results = await Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            gql(
              url,
              CreateIssueDocument,
              { input: { projectPath: path, title: `Parallel ${i}` } },
              { token: w.tokens.alice! },
            ),
          ),
        );
        const iids = results.map((r) => ok(r).createIssue!.issue!.iid).sort((a, b) => a - b);
        assert.deepEqual(
          iids,
          Array.from({ length: 50 }, (_, i) => i + 1),
        );
        const events = await story(w, path);
        assert.equal(events.length, 50);
        assert.deepEqual([...events].sort(), iids.map((iid) => `alice opened ISSUE ${iid}`).sort());
      });

      it('property: random mutation inputs never give a 500 or an internal error; valid ones succeed', async () => {
        const text = fc.oneof(
          fc.string({ maxLength: 40 }),
          fc.constantFrom(
            '',
            ' ',
            'x'.repeat(256),
            'main',
            'a..b',
            '../x',
            '日本',
            '\u0000',
            'feature/y',
          ),
        );
        const iid = fc.oneof(
          fc.integer({ min: -3, max: 60 }).map(String),
          fc.string({ maxLength: 6 }),
          fc.constantFrom('1', '01', '1.0', '9007199254740993'),
        );
        const projectPath = fc.oneof(
          fc.constantFrom(
            PROJECT,
            VAULT,
            'nobody/none',
            '',
            String(w.ids.rocket),
            toGlobalId('Project', w.ids.rocket!),
          ),
          fc.string({ maxLength: 12 }),
        );
        const anything = fc.oneof(
          text,
          fc.integer(),
          fc.boolean(),
          fc.constant(null),
          fc.array(fc.string(), { maxLength: 2 }),
        );
        const token = fc.constantFrom<string | undefined>(
          w.tokens.alice,
          w.tokens.carol,
          w.tokens.readApi,
          undefined,
        );
        const step = fc.oneof(
          fc.record({
            query: fc.constant(CREATE_ISSUE),
            input: fc.record({
              projectPath,
              title: text,
              description: fc.option(text),
              confidential: fc.option(fc.boolean()),
            }),
          }),
          fc.record({
            query: fc.constant(UPDATE_ISSUE),
            input: fc.record({
              projectPath,
              iid,
              title: fc.option(text),
              stateEvent: fc.option(fc.constantFrom('CLOSE', 'REOPEN', 'open')),
            }),
          }),
          fc.record({
            query: fc.constant(CREATE_NOTE),
            input: fc.record({
              noteableId: fc.oneof(
                text,
                fc.integer({ min: 1, max: 200 }).map((n) => `gid://gitlab/Issue/${n}`),
              ),
              body: text,
            }),
          }),
          fc.record({
            query: fc.constant(CREATE_MR),
            input: fc.record({ projectPath, title: text, sourceBranch: text, targetBranch: text }),
          }),
          fc.record({
            query: fc.constantFrom(ACCEPT_MR, UPDATE_MR),
            input: fc.record({
              projectPath,
              iid,
              state: fc.option(fc.constantFrom('OPENED', 'CLOSED')),
              targetBranch: fc.option(text),
            }),
          }),
          // Inputs of the wrong shape: coercion errors, never internal ones.
          fc.record({
            query: fc.constantFrom(CREATE_ISSUE, CREATE_NOTE, UPDATE_MR),
            input: anything,
          }),
        );
        let valid = 0;
        await fc.assert(
          fc.asyncProperty(step, token, async ({ query, input }, who) => {
            const res = await raw(url, query, { input }, who ? { token: who } : {});
            assert.ok(
              res.status === 200 || res.status === 400,
              `${res.status} ${JSON.stringify(res.body)}`,
            );
            for (const code of codes(res.body)) {
              assert.ok(
                [
                  'BAD_USER_INPUT',
                  'UNAUTHENTICATED',
                  'FORBIDDEN',
                  'NOT_FOUND',
                  'GRAPHQL_VALIDATION_FAILED',
                ].includes(code ?? ''),
                JSON.stringify(res.body),
              );
            }
            // A valid issue mixed into every step must be opened.
            const title = `Valid ${valid++}`;
            const good = await gql(
              url,
              CreateIssueDocument,
              { input: { projectPath: PROJECT, title } },
              { token: w.tokens.alice! },
            );
            const created: CreateIssueMutation = ok(good);
            assert.equal(created.createIssue!.issue!.title, title);
            assert.deepEqual(created.createIssue!.errors, []);
          }),
          { numRuns: 40 },
        );
      });
    });
  }
}

const CREATE_ISSUE = `mutation ($input: CreateIssueInput!) {
  createIssue(input: $input) { issue { iid title } errors clientMutationId }
}`;
const UPDATE_ISSUE = `mutation ($input: UpdateIssueInput!) {
  updateIssue(input: $input) { issue { iid title state } errors clientMutationId }
}`;
const CREATE_NOTE = `mutation ($input: CreateNoteInput!) {
  createNote(input: $input) { note { body } errors clientMutationId }
}`;
const CREATE_MR = `mutation ($input: MergeRequestCreateInput!) {
  mergeRequestCreate(input: $input) { mergeRequest { iid state } errors clientMutationId }
}`;
const UPDATE_MR = `mutation ($input: MergeRequestUpdateInput!) {
  mergeRequestUpdate(input: $input) { mergeRequest { iid state } errors clientMutationId }
}`;
const ACCEPT_MR = `mutation ($input: MergeRequestAcceptInput!) {
  mergeRequestAccept(input: $input) { mergeRequest { iid state } errors clientMutationId }
}`;

async function issueDatabaseId(w: World, iid: number): Promise<number> {
  const res = await raw<{ updateIssue: { issue: { databaseId: number } } }>(
    w.server.url,
    `mutation { updateIssue(input: {projectPath: "${PROJECT}", iid: "${iid}"}) { issue { databaseId } } }`,
    undefined,
    { token: w.tokens.alice! },
  );
  return ok(res).updateIssue.issue.databaseId;
}
