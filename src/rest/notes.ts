/** Notes on issues, merge requests and project snippets (lib/api/notes.rb): list and create. */
import type { FastifyInstance } from 'fastify';
import type { Services } from '../services/container.js';
import type { NoteableRef } from '../services/content/notes.js';
import type { TInteger } from '@sinclair/typebox';
import { int, str } from './body.js';
import { integer, required, text, values } from './params.js';
import { presentNoteEntity } from './entities.js';
import { listRoute } from './reads.js';
import { PAGE_PARAMS, PROJECT, params, write } from './writes.js';

/** The three noteable paths: segment, the iid/id parameter, and how it names the noteable. */
const NOTEABLES = [
  ['issues', 'issue_iid', (n: number): NoteableRef => ({ type: 'Issue', iid: n })],
  [
    'merge_requests',
    'merge_request_iid',
    (n: number): NoteableRef => ({ type: 'MergeRequest', iid: n }),
  ],
  ['snippets', 'snippet_id', (n: number): NoteableRef => ({ type: 'Snippet', id: n })],
] as const;

export function noteRoutes(app: FastifyInstance, services: Services): void {
  // Read per request: the external URL may be settled after routes are registered.
  const url = () => services.config.externalUrl;
  for (const [segment, key, ref] of NOTEABLES) {
    const path = `/projects/:id/${segment}/:${key}/notes`;
    const target = {
      ...PROJECT,
      ...({ [key]: required(integer()) } as Record<typeof key, TInteger>),
    };

    app.get(
      path,
      listRoute(
        services,
        {
          ...target,
          ...PAGE_PARAMS,
          sort: values(['asc', 'desc']),
          order_by: values(['created_at', 'updated_at']),
        },
        async (ops, p, page) => {
          const list = await ops.notes.list(str(p.id)!, ref(int(p[key])!), {
            ...page,
            sort: p.sort === 'asc' ? 'asc' : 'desc',
          });
          return {
            items: list.notes.map((note) => presentNoteEntity(note, url())),
            total: list.total,
          };
        },
      ),
    );

    app.post(path, (request, reply) =>
      write(services, request, reply, 201, async (ops) => {
        const p = params(request, {
          ...target,
          body: required(text()),
        });
        const note = await ops.notes.create(str(p.id)!, ref(int(p[key])!), str(p.body)!);
        return presentNoteEntity(note, url());
      }),
    );
  }
}
