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
    return ctx.present.target(target);
  }
}
