/**
 * How every mutation answers, as GitLab's do: the changed object and `errors: [String!]!`.
 * Problems with the input or the object's state (a blank title, merging a merged merge request,
 * a second open merge request for a branch) are values in `errors` with the object null and
 * HTTP 200; who may do it (401, 403, 404) stays a GraphQL error with `extensions.code`. The
 * write's transaction is rolled back either way: nothing, not the event either, is left.
 */
import {
  ForbiddenError,
  NotFoundError,
  inMutationPayload,
  isServiceError,
} from '../domain/errors.js';
import type { ContentOps } from '../services/content/ops.js';
import type { GraphQLContext } from './context.js';
import { isRowId } from '../domain/ids.js';

export interface MutationPayload {
  errors: string[];
  clientMutationId: string | null;
}

/** Rails' `humanize`: `source_branch` → `Source branch`. */
function humanize(attribute: string): string {
  const words = attribute.replace(/_id$/, '').replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** ActiveModel's `full_messages`: "Title can't be blank". */
export function fullMessages(fields: Record<string, string[]>): string[] {
  return Object.entries(fields).flatMap(([field, messages]) =>
    messages.map((message) => `${humanize(field)} ${message}`),
  );
}

/**
 * The messages an error puts in `errors`, or null when it is a GraphQL error instead: the error
 * table (domain/errors.ts) decides which codes those are.
 */
function payloadErrors(error: unknown): string[] | null {
  if (!isServiceError(error) || !inMutationPayload(error.code)) return null;
  return error.code === 'INVALID_RECORD' ? fullMessages(error.fields) : [error.message];
}

/**
 * Runs `work` as one write and builds the payload: `{ [key]: object, errors: [], clientMutationId }`
 * on success, `{ [key]: null, errors: [...] }` on a validation problem.
 */
export async function mutate<K extends string, T>(
  ctx: GraphQLContext,
  input: { clientMutationId?: string | null | undefined },
  key: K,
  work: (ops: ContentOps) => Promise<T>,
): Promise<MutationPayload & Record<K, T | null>> {
  const clientMutationId = input.clientMutationId ?? null;
  let value: T | null = null;
  let errors: string[] = [];
  try {
    value = await ctx.write(work);
  } catch (error) {
    const messages = payloadErrors(error);
    if (messages === null) throw forGraphql(ctx, error);
    errors = messages;
  }
  return { [key]: value, errors, clientMutationId } as MutationPayload & Record<K, T | null>;
}

/**
 * REST answers 401 to a signed-in user who may not merge or approve (GitLab's REST quirk); over
 * GraphQL the caller is known, so that is a permission failure like any other.
 */
function forGraphql(ctx: GraphQLContext, error: unknown): unknown {
  if (isServiceError(error) && error.code === 'UNAUTHENTICATED' && ctx.principal !== null)
    return new ForbiddenError();
  return error;
}

const IID = /^[1-9]\d{0,15}$/;

/** GitLab's `iid: String!`: a number as text; anything else names no object (NOT_FOUND). */
export function iidOf(value: string, resource: 'Issue' | 'Merge Request'): number {
  const iid = IID.test(value) ? Number(value) : NaN;
  if (!isRowId(iid)) throw new NotFoundError(resource);
  return iid;
}
