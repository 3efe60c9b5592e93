/** `Query.queryComplexity`: the cost of the running query, as GitLab exposes it. */
import { Field, Int, ObjectType } from 'type-graphql';

@ObjectType('QueryComplexity', { simpleResolvers: true })
export class QueryComplexityType {
  @Field(() => Int, {
    description:
      'Cost of this query: 1 per field, times the page size below a connection (what the gate checks).',
  })
  score!: number;

  @Field(() => Int, { description: 'Highest cost allowed for this caller (anonymous or not).' })
  limit!: number;
}
