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
    const target = await ctx.reader.target(event);
    if (!target) return null;
    const { present } = ctx;
    switch (target.type) {
      case 'Issue':
        return present.issue(target.issue, target.author);
      case 'MergeRequest':
        return present.mergeRequest(target.mergeRequest, target.author);
      case 'Milestone':
        return present.milestone(target.milestone);
      case 'Snippet':
        return present.snippet(target.snippet, target.author);
      case 'Note':
        return present.note(target.note);
      case 'Project':
        return present.project(target.project);
      case 'User':
        return present.user(target.user);
    }
  }
}
