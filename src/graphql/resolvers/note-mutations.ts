/**
 * `createNote`: a comment on the issue, merge request or project snippet a global id names. The
 * id is resolved under the viewer's read rules first (a hidden issue is NOT_FOUND, as through
 * `node(id:)`); the service then checks again inside the write.
 */
import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
import { NotFoundError } from '../../domain/errors.js';
import type { NoteableRef as ServiceNoteable } from '../../services/content/notes.js';
import type { GraphQLContext } from '../context.js';
import { mutate } from '../mutation.js';
import { CreateNoteInput, CreateNotePayload } from '../types/note-mutations.js';
import type { NoteableRef } from '../types/noteable-id.js';

const RESOURCE = { Issue: 'Issue', MergeRequest: 'Merge Request', Snippet: 'Snippet' } as const;

/** The project and the service's name for a noteable, or NOT_FOUND. */
async function locate(
  ctx: GraphQLContext,
  ref: NoteableRef,
): Promise<{ projectId: number; on: ServiceNoteable }> {
  const target = await ctx.reader.content(ref.type, ref.id);
  switch (target?.type) {
    case 'Issue':
      return { projectId: target.issue.projectId, on: { type: 'Issue', iid: target.issue.iid } };
    case 'MergeRequest':
      return {
        projectId: target.mergeRequest.projectId,
        on: { type: 'MergeRequest', iid: target.mergeRequest.iid },
      };
    case 'Snippet':
      // Personal snippets have no project: pulsegate keeps notes on project snippets only.
      if (target.snippet.projectId !== null) {
        return {
          projectId: target.snippet.projectId,
          on: { type: 'Snippet', id: target.snippet.id },
        };
      }
  }
  throw new NotFoundError(RESOURCE[ref.type]);
}

@Resolver()
export class NoteMutationResolver {
  @Mutation(() => CreateNotePayload, {
    nullable: true,
    description: 'Comments on an issue, merge request or project snippet (writes "commented on").',
  })
  async createNote(
    @Arg('input', () => CreateNoteInput) input: CreateNoteInput,
    @Ctx() ctx: GraphQLContext,
  ) {
    // Anonymous and read-only tokens are refused before anything is looked up; the lookup runs
    // before the write's transaction (SQLite's one connection is the transaction's meanwhile).
    ctx.authorizeWrite();
    const { projectId, on } = await locate(ctx, input.noteableId);
    return mutate(ctx, input, 'note', async (ops) =>
      ctx.present.note(await ops.notes.create(String(projectId), on, input.body)),
    );
  }
}
