/** `Event.target`: the object an event is about, loaded in batches per request. */
import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { GraphQLContext } from '../context.js';
import { EventTargetUnion, EventType } from '../types/event.js';

@Resolver(() => EventType)
export class EventResolver {
  @FieldResolver(() => EventTargetUnion, {
    nullable: true,
    description: 'Null for events without a target and for targets pulsegate does not model.',
  })
  async target(@Root() event: EventType, @Ctx() ctx: GraphQLContext): Promise<unknown> {
    const id = event.targetId;
    if (id === null) return null;
    const { loaders, present } = ctx;
    const author = async (authorId: number) => loaders.users.load(authorId);
    switch (event.targetType) {
      case 'Issue': {
        const row = await loaders.issues.load(id);
        return row && present.issue(row, await author(row.author_id));
      }
      case 'MergeRequest': {
        const row = await loaders.mergeRequests.load(id);
        return row && present.mergeRequest(row, await author(row.author_id));
      }
      case 'Milestone': {
        const row = await loaders.milestones.load(id);
        return row && present.milestone(row);
      }
      case 'Snippet': {
        const row = await loaders.snippets.load(id);
        return row && present.snippet(row, await author(row.author_id));
      }
      case 'Note': {
        const row = await loaders.notes.load(id);
        if (!row) return null;
        const [noteAuthor, noteable] = await Promise.all([
          author(row.author_id),
          row.noteable_type === 'Issue'
            ? loaders.issues.load(row.noteable_id)
            : row.noteable_type === 'MergeRequest'
              ? loaders.mergeRequests.load(row.noteable_id)
              : null,
        ]);
        return present.note(row, noteAuthor, noteable?.iid ?? null);
      }
      case 'Project': {
        const row = await loaders.projects.load(id);
        return row && present.project(row);
      }
      case 'User': {
        const row = await loaders.users.load(id);
        return row && present.user(row);
      }
      default:
        return null;
    }
  }
}
