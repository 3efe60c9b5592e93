/**
 * The one schema both engines serve, built code-first from the decorated types and resolvers. It is
 * built once per process (type-graphql's metadata is global) and printed to `schema.graphql` by
 * `npm run schema`.
 */
import 'reflect-metadata';
import { type GraphQLSchema, isAbstractType, printSchema } from 'graphql';
import { buildSchema } from 'type-graphql';
import { UserActivityResolver, UserActivityStreamResolver } from './resolvers/activity.js';
import { EventConnectionResolver, PageInfoResolver } from './resolvers/connection.js';
import { IssueResolver, MergeRequestResolver } from './resolvers/content.js';
import { EventResolver } from './resolvers/event.js';
import { IssueMutationResolver } from './resolvers/issue-mutations.js';
import { MergeRequestMutationResolver } from './resolvers/merge-request-mutations.js';
import { NoteMutationResolver } from './resolvers/note-mutations.js';
import { ProjectResolver } from './resolvers/project.js';
import { QueryResolver } from './resolvers/query.js';
import { SubscriptionResolver } from './resolvers/subscription.js';
import { UserResolver } from './resolvers/user.js';

let built: Promise<GraphQLSchema> | undefined;

const NO_TOPICS = {
  publish(): void {
    throw new Error('subscriptions use the live service, not topics');
  },
  subscribe(): AsyncIterable<unknown> {
    throw new Error('subscriptions use the live service, not topics');
  },
};

export function graphqlSchema(): Promise<GraphQLSchema> {
  built ??= buildSchema({
    resolvers: [
      QueryResolver,
      UserResolver,
      UserActivityResolver,
      UserActivityStreamResolver,
      ProjectResolver,
      EventResolver,
      EventConnectionResolver,
      PageInfoResolver,
      IssueResolver,
      MergeRequestResolver,
      IssueMutationResolver,
      MergeRequestMutationResolver,
      NoteMutationResolver,
      SubscriptionResolver,
    ] as const,
    // Inputs are validated by the domain rules, not by class-validator.
    validate: false,
    // type-graphql insists on a pub/sub for any subscription; ours stream from the live service
    // (`subscribe` of resolvers/subscription.ts), so topics are refused rather than silently empty.
    pubSub: NO_TOPICS,
  }).then(withSyncTypeResolution);
  return built;
}

/**
 * type-graphql wraps `resolveType` in an async function; graphql-jit (Mercurius' JIT) needs the
 * type name synchronously. Every model carries `__typename`, so resolution is a property read.
 */
function withSyncTypeResolution(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (isAbstractType(type))
      type.resolveType = (value: { __typename: string }) => value.__typename;
  }
  return schema;
}

export const SCHEMA_HEADER =
  '# Generated from src/graphql by `npm run schema`; do not edit. A test fails when it drifts.\n\n';

export async function schemaText(): Promise<string> {
  return SCHEMA_HEADER + printSchema(await graphqlSchema()) + '\n';
}
