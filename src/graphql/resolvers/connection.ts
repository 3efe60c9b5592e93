/** The lazily computed parts of a connection: the capped total and the page-info flags. */
import { FieldResolver, Int, Resolver, Root } from 'type-graphql';
import { EventConnectionType, PageInfoType } from '../types/connection.js';

@Resolver(() => EventConnectionType)
export class EventConnectionResolver {
  @FieldResolver(() => Int, {
    nullable: true,
    description: 'Number of matching events; null above 10,000 (as REST omits X-Total).',
  })
  totalCount(@Root() connection: EventConnectionType) {
    return connection.listing.total();
  }
}

@Resolver(() => PageInfoType)
export class PageInfoResolver {
  @FieldResolver(() => Boolean)
  hasNextPage(@Root() info: PageInfoType) {
    return typeof info.hasNext === 'function' ? info.hasNext() : info.hasNext;
  }

  @FieldResolver(() => Boolean)
  hasPreviousPage(@Root() info: PageInfoType) {
    return typeof info.hasPrevious === 'function' ? info.hasPrevious() : info.hasPrevious;
  }
}
