/**
 * How a mutation answers each service error is the error table's decision (domain/errors.ts), by
 * code, for every code: the codes marked `payload` become `errors` values with the object null;
 * every other code stays a GraphQL error (a caller known to be signed in gets FORBIDDEN, not
 * UNAUTHENTICATED). Whatever class raised the code.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DomainError,
  ERRORS,
  type ErrorCode,
  InvalidRecordError,
  ValidationError,
} from '../../src/domain/errors.js';
import type { GraphQLContext } from '../../src/graphql/context.js';
import { mutate } from '../../src/graphql/mutation.js';

/** A raised error of `code`: the class with details where the code needs them, else the base. */
function raised(code: ErrorCode): DomainError {
  if (code === 'INVALID_RECORD') return new InvalidRecordError({ title: ["can't be blank"] });
  if (code === 'BAD_USER_INPUT') return new ValidationError(['title is missing']);
  return new DomainError(code);
}

function contextThatFails(error: unknown, signedIn: boolean): GraphQLContext {
  return {
    principal: signedIn ? { user: { id: 1 } } : null,
    write: () => Promise.reject(error),
  } as unknown as GraphQLContext;
}

const PAYLOAD: ErrorCode[] = ['NOT_ALLOWED', 'CONFLICT', 'INVALID_RECORD', 'UNPROCESSABLE'];

describe('mutation answers follow the error table', () => {
  it('names exactly the input and state problems as payload errors', () => {
    const marked = (Object.keys(ERRORS) as ErrorCode[]).filter((code) => 'payload' in ERRORS[code]);
    assert.deepEqual(marked.sort(), [...PAYLOAD].sort());
  });

  for (const code of Object.keys(ERRORS) as ErrorCode[]) {
    it(code, async () => {
      for (const signedIn of [true, false]) {
        const error = raised(code);
        const answer = mutate(
          contextThatFails(error, signedIn),
          { clientMutationId: 'c' },
          'issue',
          () => Promise.resolve(1),
        );
        if (PAYLOAD.includes(code)) {
          const messages = code === 'INVALID_RECORD' ? ["Title can't be blank"] : [error.message];
          assert.deepEqual(await answer, { issue: null, errors: messages, clientMutationId: 'c' });
        } else if (code === 'UNAUTHENTICATED' && signedIn) {
          await assert.rejects(answer, (e: DomainError) => e.code === 'FORBIDDEN');
        } else {
          await assert.rejects(answer, (e) => e === error);
        }
      }
    });
  }
});
