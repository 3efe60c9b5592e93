/**
 * Request limits of the GraphQL face. Query size and depth follow GitLab (10,000 characters; depth
 * 15 anonymous / 20 authenticated). Complexity is GitHub-style: every field costs 1 and a
 * connection multiplies its children's cost by its page size, so nested connections are priced
 * at what they would really fetch.
 */
import {
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLSchema,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
  getNamedType,
} from 'graphql';
import { createRequire } from 'node:module';
import type { ComplexityEstimator } from 'graphql-query-complexity';
import { MAX_PER_PAGE } from '../domain/pagination.js';
import { estimatedPageSize } from './pagination.js';

// The package's ESM build imports graphql's .mjs files, a second copy of graphql next to the CJS
// one everything else uses ("another module or realm"); its CJS build shares ours.
const { getComplexity } = createRequire(import.meta.url)(
  'graphql-query-complexity',
) as typeof import('graphql-query-complexity');

export const MAX_QUERY_LENGTH = 10_000;
export const MAX_DEPTH = { anonymous: 15, authenticated: 20 } as const;
export const MAX_COMPLEXITY = { anonymous: 5_000, authenticated: 10_000 } as const;
/** Commits kept per push (REST shows the same at most 20). */
const MAX_COMMITS = 20;

/** Nesting of fields, counted as GitLab counts it: `{ a { b } }` has depth 2. */
export function queryDepth(document: DocumentNode, operation: OperationDefinitionNode): number {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const def of document.definitions) {
    if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
  }
  // Validation has already rejected fragment cycles; `seen` only guards the walk itself.
  const depthOf = (set: SelectionSetNode, seen: Set<string>): number => {
    let max = 0;
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        const below = selection.selectionSet ? depthOf(selection.selectionSet, seen) : 0;
        max = Math.max(max, 1 + below);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        max = Math.max(max, depthOf(selection.selectionSet, seen));
      } else {
        const name = selection.name.value;
        const fragment = fragments.get(name);
        if (!fragment || seen.has(name)) continue;
        seen.add(name);
        max = Math.max(max, depthOf(fragment.selectionSet, seen));
        seen.delete(name);
      }
    }
    return max;
  };
  return depthOf(operation.selectionSet, new Set());
}

function multiplier(field: GraphQLField<unknown, unknown>, args: Record<string, unknown>): number {
  const type = getNamedType(field.type).name;
  if (type === 'EventConnection') return estimatedPageSize(args);
  if (field.name === 'nodes' && Array.isArray(args.ids)) {
    return Math.min(args.ids.length, MAX_PER_PAGE);
  }
  if (field.name === 'commits' && type === 'Commit') return MAX_COMMITS;
  return 1;
}

const estimator: ComplexityEstimator = ({ field, args, childComplexity }) =>
  1 + multiplier(field, args) * childComplexity;

/**
 * The cost of an operation. Page arguments are not judged here: a bad `first`/`last` is a field
 * error of its connection (the rest of the response stands), and is priced at what it could fetch.
 */
export function queryComplexity(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | undefined,
  variables: Record<string, unknown>,
): number {
  return getComplexity({
    schema,
    query: document,
    ...(operationName ? { operationName } : {}),
    variables,
    estimators: [estimator],
  });
}
