/**
 * Property: whatever filters, cursors, ids, page sizes and variables a client sends, the answer is
 * a GraphQL response whose errors all carry a known code, never a 5xx. A valid query with a known
 * answer is mixed into every step and must still return exactly its events, so a server that
 * refuses everything (or answers errors to all) fails these suites. Every mutation gets random
 * input, in variables and inline, from every kind of caller; a valid mutation per step, cycling
 * through them all, must still give its exact payload.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { ProjectEventsDocument, UserEventsDocument } from './generated/graphql.js';
import { type Catalog, expectedIds, seedCatalog } from '../helpers/catalog.js';
import { Fixtures } from '../helpers/fixtures.js';
import { DIALECTS, type TestServer, startServer } from '../helpers/server.js';
import { ENGINES, type GqlResponse, codes, gql, raw } from './client.js';
import { NODE_TYPES, encodeCursor, toGlobalId } from '../../src/graphql/ids.js';

const KNOWN = new Set([
  'BAD_REQUEST',
  'BAD_USER_INPUT',
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'OPERATION_RESOLUTION_FAILURE',
  'PAGE_SIZE_EXCEEDED',
  'QUERY_TOO_COMPLEX',
  'QUERY_TOO_DEEP',
  'QUERY_TOO_LARGE',
  'NOT_FOUND',
  'UNAUTHENTICATED',
  'FORBIDDEN',
]);

function check(res: GqlResponse<unknown>) {
  assert.ok(res.status < 500, `status ${res.status}: ${JSON.stringify(res.body)}`);
  for (const error of res.body.errors ?? []) {
    assert.ok(KNOWN.has(error.extensions?.code ?? ''), JSON.stringify(error));
  }
  if (res.status === 200) assert.ok('data' in res.body);
}

const anything = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 }),
);
const dateish = fc.oneof(
  fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
  fc.date({ noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
  fc.string(),
  fc.constantFrom('2024-02-30', '2026-01-05', '2026-01-05 10:00', '0000-00-00', ''),
);
const cursor = fc.oneof(
  fc.integer({ min: -5, max: 2 ** 40 }).map((n) => (n > 0 ? encodeCursor(n) : String(n))),
  fc.constantFrom(2 ** 31 - 1, 2 ** 31, Number.MAX_SAFE_INTEGER).map(encodeCursor),
  fc.string(),
  fc.base64String(),
);
const filter = fc.record(
  {
    action: fc.oneof(fc.constantFrom('CREATED', 'PUSHED', 'MERGED', 'APPROVED'), anything),
    targetType: fc.oneof(fc.constantFrom('ISSUE', 'MERGE_REQUEST', 'WIKI', 'NOTE'), anything),
    before: dateish,
    after: dateish,
    sort: fc.oneof(fc.constantFrom('ASC', 'DESC'), anything),
  },
  { requiredKeys: [] },
);
const pageArgs = fc.record(
  {
    first: fc.oneof(fc.integer({ min: -10, max: 300 }), anything),
    last: fc.oneof(fc.integer({ min: -10, max: 300 }), anything),
    after: cursor,
    before: cursor,
  },
  { requiredKeys: [] },
);

for (const dialect of DIALECTS) {
  for (const engine of ENGINES) {
    describe(`GraphQL fuzzing (${dialect}, ${engine})`, () => {
      let server: TestServer;
      let catalog: Catalog;
      before(async () => {
        server = await startServer({ dialect, config: { graphqlEngine: engine } });
        catalog = await seedCatalog(server.store);
      });
      after(() => server.close());

      let step = 0;
      /** A valid query, varied per step, still answers 200 with exactly the model's events. */
      async function assertValidStillAnswers() {
        step += 1;
        const first = 1 + (step % 5);
        const sort = step % 2 ? 'asc' : 'desc';
        const res = await raw(
          server.url,
          'query V($first: Int, $sort: SortOrder) { project(idOrPath: "acme/catalog") { events(first: $first, filter: { sort: $sort }) { nodes { databaseId } } } }',
          { first, sort: sort.toUpperCase() },
          { token: catalog.ownerToken },
        );
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
        const data = res.body.data as { project: { events: { nodes: { databaseId: number }[] } } };
        assert.deepEqual(
          data.project.events.nodes.map((n) => n.databaseId),
          expectedIds(catalog.events, () => true, sort).slice(0, first),
        );
      }

      it('random filters, cursors and page sizes on project and user events', async () => {
        await fc.assert(
          fc.asyncProperty(
            filter,
            pageArgs,
            fc.oneof(
              fc.constant(String(catalog.projectId)),
              fc.constant('acme/catalog'),
              fc.string(),
            ),
            fc.boolean(),
            async (f, page, idOrPath, withToken) => {
              const options = withToken ? { token: catalog.ownerToken } : {};
              const vars = { filter: f, ...page } as never;
              check(
                await gql(
                  server.url,
                  ProjectEventsDocument,
                  { idOrPath, ...(vars as object) } as never,
                  options,
                ),
              );
              check(
                await gql(
                  server.url,
                  UserEventsDocument,
                  { id: idOrPath, ...(vars as object) } as never,
                  options,
                ),
              );
              await assertValidStillAnswers();
            },
          ),
          { numRuns: 60 },
        );
      });

      it('random global ids and raw variables', async () => {
        await fc.assert(
          fc.asyncProperty(
            fc.oneof(
              fc.constantFrom(...NODE_TYPES).chain((t) =>
                fc
                  .tuple(
                    // Small ids find objects; large ones (past PostgreSQL's 32-bit ids) name none.
                    fc.oneof(fc.integer({ min: 1, max: 40 }), fc.maxSafeNat()),
                    fc.boolean(),
                  )
                  .map(([n, gitlab]) => (gitlab ? `gid://gitlab/${t}/${n}` : toGlobalId(t, n))),
              ),
              fc.string(),
              fc.base64String(),
            ),
            anything,
            async (id, junk) => {
              check(
                await raw(
                  server.url,
                  'query N($id: ID!) { node(id: $id) { id } }',
                  { id },
                  { token: catalog.ownerToken },
                ),
              );
              check(
                await raw(server.url, 'query N($ids: [ID!]!) { nodes(ids: $ids) { id } }', {
                  ids: [id, id],
                }),
              );
              check(
                await raw(
                  server.url,
                  'query Q($x: Int) { events(first: $x) { totalCount } }',
                  { x: junk },
                  { token: catalog.ownerToken },
                ),
              );
              await assertValidStillAnswers();
            },
          ),
          { numRuns: 60 },
        );
      });

      it('operation types the schema lacks and odd operation names, by POST and GET', async () => {
        // None of these selections is a subscription field, and a mutation selecting query fields is
        // invalid: both are validation errors (400); a mutation by GET never runs; an empty
        // operationName means none was given, on both engines alike.
        await fc.assert(
          fc.asyncProperty(
            fc.constantFrom('query', 'mutation', 'subscription', ''),
            fc.constantFrom(
              '{ __typename }',
              '{ currentUser { username } }',
              '{ events { totalCount } }',
            ),
            fc.option(fc.constantFrom('A', 'B'), { nil: undefined }),
            fc.option(fc.oneof(fc.constantFrom('', 'A', 'B'), fc.string({ maxLength: 6 })), {
              nil: undefined,
            }),
            fc.boolean(),
            fc.boolean(),
            async (kind, selection, name, operationName, secondOperation, useGet) => {
              const head = kind === '' ? '' : `${kind}${name ? ` ${name}` : ''} `;
              let query = `${head}${selection}`;
              if (secondOperation) query += ` query B { __typename }`;
              const params: Record<string, string> = { query };
              if (operationName !== undefined) params.operationName = operationName;
              const res = useGet
                ? await fetch(`${server.url}/api/graphql?${new URLSearchParams(params)}`, {
                    headers: { 'PRIVATE-TOKEN': catalog.ownerToken },
                  })
                : await fetch(`${server.url}/api/graphql`, {
                    method: 'POST',
                    headers: { 'content-type': 'application/json' },
                    body: JSON.stringify(params),
                  });
              const reply = {
                status: res.status,
                headers: res.headers,
                body: (await res.json()) as GqlResponse<unknown>['body'],
              };
              check(reply);
              const validMutation = kind === 'mutation' && selection === '{ __typename }';
              if (kind === 'subscription' || (kind === 'mutation' && !validMutation)) {
                assert.equal(reply.status, 400, JSON.stringify(reply.body));
                const found = codes(reply.body);
                assert.ok(found.length > 0);
                for (const code of found) assert.equal(code, 'GRAPHQL_VALIDATION_FAILED');
              }
              // Whatever runs by GET is the query beside it, never the mutation.
              if (validMutation && useGet && reply.status === 200) {
                assert.deepEqual(reply.body, { data: { __typename: 'Query' } });
              }
              await assertValidStillAnswers();
            },
          ),
          { numRuns: 80 },
        );
      });

      it('random query text', async () => {
        await fc.assert(
          fc.asyncProperty(fc.string({ maxLength: 200 }), async (text) => {
            check(
              await raw(server.url, `{ events { nodes { ${text} } } }`, undefined, {
                token: catalog.ownerToken,
              }),
            );
            check(await raw(server.url, text));
            await assertValidStillAnswers();
          }),
          { numRuns: 60 },
        );
      });
      // Last: its writes add events that the valid query above would not expect.
      it('random input to every mutation, by every kind of caller; valid mutations still succeed', async () => {
        const f = new Fixtures(server.store);
        const bob = await f.user('bob');
        const target = await f.project('acme/fuzz', catalog.ownerId, 'public');
        await f.member(target.id, catalog.ownerId, 50);
        const targetIssue = await f.issue(target.id, catalog.ownerId, 'Target');
        await f.mergeRequest(target.id, catalog.ownerId, 'Target');
        // Valid mutations act on a project the random ones never name.
        const valid = await f.project('acme/valid', catalog.ownerId, 'public');
        await f.member(valid.id, catalog.ownerId, 50);
        const validIssue = await f.issue(valid.id, catalog.ownerId, 'Valid');
        const tokens = {
          owner: catalog.ownerToken,
          reader: await f.token(catalog.ownerId, ['read_api']),
          pusher: await f.token(catalog.ownerId, ['write_repository']),
          stranger: await f.token(bob.id, ['api']),
        };

        const text = fc.oneof(
          fc.string({ maxLength: 30 }),
          fc.constantFrom('', ' ', 'x'.repeat(300), 'main', 'a..b', '\u0000', 'a\u0000b', '日本'),
        );
        const junk = fc.oneof(
          text,
          fc.integer(),
          fc.double(),
          fc.boolean(),
          fc.constant(null),
          fc.array(fc.string(), { maxLength: 2 }),
          fc.dictionary(fc.string({ maxLength: 4 }), fc.string(), { maxKeys: 2 }),
        );
        const maybe = <T>(a: fc.Arbitrary<T>) => fc.oneof(a, junk);
        const projectPath = maybe(
          fc.constantFrom(
            'acme/fuzz',
            'nobody/none',
            '',
            String(target.id),
            toGlobalId('Project', target.id),
          ),
        );
        const iid = maybe(
          fc.oneof(
            fc.integer({ min: -2, max: 4 }).map(String),
            fc.constantFrom('01', '1.0', '9007199254740993'),
          ),
        );
        const noteableId = maybe(
          fc
            .tuple(
              fc.constantFrom('Issue', 'MergeRequest', 'Snippet', 'Project'),
              fc.integer({ min: 0, max: 12 }),
              fc.boolean(),
            )
            .map(([type, n, gitlab]) =>
              gitlab ? `gid://gitlab/${type}/${n}` : toGlobalId(type as never, n),
            ),
        );
        const MUTATIONS = [
          [
            'createIssue',
            'CreateIssueInput',
            'issue { iid }',
            {
              projectPath,
              title: maybe(text),
              description: maybe(text),
              confidential: maybe(fc.boolean()),
            },
          ],
          [
            'updateIssue',
            'UpdateIssueInput',
            'issue { iid state }',
            {
              projectPath,
              iid,
              title: maybe(text),
              description: maybe(text),
              confidential: maybe(fc.boolean()),
              stateEvent: maybe(fc.constantFrom('CLOSE', 'REOPEN')),
            },
          ],
          [
            'mergeRequestCreate',
            'MergeRequestCreateInput',
            'mergeRequest { iid }',
            {
              projectPath,
              title: maybe(text),
              sourceBranch: maybe(text),
              targetBranch: maybe(text),
              description: maybe(text),
            },
          ],
          [
            'mergeRequestUpdate',
            'MergeRequestUpdateInput',
            'mergeRequest { iid state }',
            {
              projectPath,
              iid,
              title: maybe(text),
              description: maybe(text),
              targetBranch: maybe(text),
              state: maybe(fc.constantFrom('CLOSED', 'OPENED')),
            },
          ],
          [
            'mergeRequestAccept',
            'MergeRequestAcceptInput',
            'mergeRequest { iid state }',
            { projectPath, iid },
          ],
          ['createNote', 'CreateNoteInput', 'note { body }', { noteableId, body: maybe(text) }],
        ] as const;
        const KNOWN_HERE = new Set([...KNOWN, 'CONFLICT']);
        /** Inputs that pass every check before the database, per mutation. */
        const PLAUSIBLE: Record<string, Record<string, string>> = {
          createIssue: { projectPath: 'acme/fuzz', title: 't', description: 'd' },
          updateIssue: { projectPath: 'acme/fuzz', iid: '1', title: 't', description: 'd' },
          mergeRequestCreate: {
            projectPath: 'acme/fuzz',
            title: 't',
            sourceBranch: 's',
            targetBranch: 'main',
            description: 'd',
          },
          mergeRequestUpdate: {
            projectPath: 'acme/fuzz',
            iid: '1',
            title: 't',
            description: 'd',
            targetBranch: 'main',
          },
          mergeRequestAccept: { projectPath: 'acme/fuzz', iid: '1' },
          createNote: { noteableId: toGlobalId('Issue', targetIssue.id), body: 'b' },
        };
        /** A plausible input as is, or with a NUL put into one of its strings. */
        const plausible = (field: string) => {
          const base = PLAUSIBLE[field]!;
          return fc.oneof(
            fc.constant(base),
            fc
              .tuple(
                fc.constantFrom(...Object.keys(base)),
                fc.constantFrom('\u0000', 'a\u0000', 'a\u0000b'),
              )
              .map(([key, text]) => ({ ...base, [key]: text })),
          );
        };
        const step = fc.oneof(
          ...MUTATIONS.map(([field, type, selection, fields]) =>
            fc
              .record({
                field: fc.constant(field),
                type: fc.constant(type),
                selection: fc.constant(selection),
                // Plausible inputs go out as the project's owner, by POST.
                plausible: fc.boolean(),
              })
              .chain(
                (m) =>
                  fc.record({
                    ...Object.fromEntries(Object.entries(m).map(([k, v]) => [k, fc.constant(v)])),
                    input: m.plausible
                      ? plausible(field)
                      : fc.record(fields as Record<string, fc.Arbitrary<unknown>>, {
                          requiredKeys: [],
                        }),
                  }) as fc.Arbitrary<typeof m & { input: Record<string, unknown> }>,
              ),
          ),
        );

        let n = 0;
        let lastMr = '';
        /** The valid mutation of step `n` on acme/valid, and what its payload must say. */
        async function assertValidMutation() {
          const i = n++;
          const call = (field: string, type: string, selection: string, input: object) =>
            raw<Record<string, { errors: string[] } & Record<string, Record<string, unknown>>>>(
              server.url,
              `mutation M($input: ${type}!) { ${field}(input: $input) { ${selection} errors } }`,
              { input },
              { token: catalog.ownerToken },
            );
          const expect = async (
            res: Awaited<ReturnType<typeof call>>,
            field: string,
            key: string,
            expected: Record<string, unknown>,
          ) => {
            assert.equal(res.status, 200, JSON.stringify(res.body));
            assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
            const payload = res.body.data![field]!;
            assert.deepEqual(payload.errors, [], field);
            for (const [k, v] of Object.entries(expected))
              assert.deepEqual(payload[key]![k], v, `${field}.${k}`);
            return payload[key]!;
          };
          switch (i % 6) {
            case 0:
              await expect(
                await call('createIssue', 'CreateIssueInput', 'issue { title }', {
                  projectPath: 'acme/valid',
                  title: `valid ${i}`,
                }),
                'createIssue',
                'issue',
                { title: `valid ${i}` },
              );
              break;
            case 1:
              await expect(
                await call('createNote', 'CreateNoteInput', 'note { body }', {
                  noteableId: toGlobalId('Issue', validIssue.id),
                  body: `valid ${i}`,
                }),
                'createNote',
                'note',
                { body: `valid ${i}` },
              );
              break;
            case 2:
              await expect(
                await call('updateIssue', 'UpdateIssueInput', 'issue { title }', {
                  projectPath: 'acme/valid',
                  iid: String(validIssue.iid),
                  title: `valid ${i}`,
                }),
                'updateIssue',
                'issue',
                { title: `valid ${i}` },
              );
              break;
            case 3: {
              const mr = await expect(
                await call(
                  'mergeRequestCreate',
                  'MergeRequestCreateInput',
                  'mergeRequest { iid state }',
                  {
                    projectPath: 'acme/valid',
                    title: `valid ${i}`,
                    sourceBranch: `valid-${i}`,
                    targetBranch: 'main',
                  },
                ),
                'mergeRequestCreate',
                'mergeRequest',
                { state: 'opened' },
              );
              lastMr = String(mr.iid);
              break;
            }
            case 4:
              await expect(
                await call(
                  'mergeRequestUpdate',
                  'MergeRequestUpdateInput',
                  'mergeRequest { iid title }',
                  { projectPath: 'acme/valid', iid: lastMr, title: `valid ${i}` },
                ),
                'mergeRequestUpdate',
                'mergeRequest',
                { title: `valid ${i}` },
              );
              break;
            default:
              await expect(
                await call(
                  'mergeRequestAccept',
                  'MergeRequestAcceptInput',
                  'mergeRequest { iid state }',
                  { projectPath: 'acme/valid', iid: lastMr },
                ),
                'mergeRequestAccept',
                'mergeRequest',
                { state: 'merged' },
              );
          }
        }

        await fc.assert(
          fc.asyncProperty(
            step,
            fc.constantFrom<keyof typeof tokens | 'anonymous'>(
              'owner',
              'reader',
              'pusher',
              'stranger',
              'anonymous',
            ),
            fc.constantFrom('variables', 'inline', 'get'),
            async (
              { field, type, selection, input, plausible: owner },
              randomCaller,
              randomHow,
            ) => {
              const who = owner ? 'owner' : randomCaller;
              const how = owner && randomHow === 'get' ? 'variables' : randomHow;
              const token = who === 'anonymous' ? undefined : tokens[who];
              const options = token ? { token } : {};
              const inline = `mutation { ${field}(input: ${JSON.stringify(input).replace(/"([A-Za-z_]+)":/g, '$1:')}) { ${selection} errors } }`;
              const query = `mutation M($input: ${type}!) { ${field}(input: $input) { ${selection} errors } }`;
              let res: GqlResponse<unknown>;
              if (how === 'get') {
                const r = await fetch(
                  `${server.url}/api/graphql?${new URLSearchParams({ query, variables: JSON.stringify({ input }) })}`,
                  { headers: token ? { 'PRIVATE-TOKEN': token } : {} },
                );
                res = {
                  status: r.status,
                  headers: r.headers,
                  body: (await r.json()) as GqlResponse<unknown>['body'],
                };
                // A mutation never runs by GET.
                assert.ok(res.status >= 400 && res.status < 500, JSON.stringify(res.body));
              } else {
                res =
                  how === 'inline'
                    ? await raw(server.url, inline, undefined, options)
                    : await raw(server.url, query, { input }, options);
              }
              assert.ok(res.status < 500, `status ${res.status}: ${JSON.stringify(res.body)}`);
              for (const error of res.body.errors ?? []) {
                assert.ok(KNOWN_HERE.has(error.extensions?.code ?? ''), JSON.stringify(error));
              }
              if (res.status === 200) {
                const payload = (
                  res.body.data as Record<string, { errors?: unknown } | null> | null
                )?.[field];
                if (payload) assert.ok(Array.isArray(payload.errors), JSON.stringify(res.body));
              }
              await assertValidMutation();
            },
          ),
          { numRuns: 60 },
        );
        assert.ok(n >= 60);
      });
    });
  }
}
