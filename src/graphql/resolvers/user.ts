/** `User.events`: a user's events as REST `/users/:id/events` lists them. */
import { Args, Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import { ENDPOINT_SCOPES } from '../../domain/scopes.js';
import type { GraphQLContext } from '../context.js';
import { eventConnection, toEventFilter } from '../connection.js';
import { EventConnectionArgs, EventConnectionType } from '../types/connection.js';
import { UserType } from '../types/user.js';

@Resolver(() => UserType)
export class UserResolver {
  @FieldResolver(() => EventConnectionType, {
    nullable: true,
    description:
      "The user's events in projects the viewer can read; empty for private or blocked profiles.",
  })
  async events(
    @Root() user: UserType,
    @Args(() => EventConnectionArgs) args: EventConnectionArgs,
    @Ctx() ctx: GraphQLContext,
  ) {
    ctx.authorize(ENDPOINT_SCOPES.user);
    const source = { kind: 'user', id: user.databaseId } as const;
    return eventConnection(ctx, source, toEventFilter(args.filter), args);
  }
}
