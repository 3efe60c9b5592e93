import type { FastifyRequest } from 'fastify';
import type { GraphQLContext } from '../context.js';
import type { Prepared } from '../gate.js';

/** A finished response, written by the face (index.ts), where the result cache also sees it. */
export interface Outcome {
  status: number;
  contentType: string;
  body: string;
  /** The body carries `errors`: such a response is never cached. */
  failed: boolean;
}

/** Runs an operation the gate has accepted. */
export type Executor = (
  request: FastifyRequest,
  prepared: Prepared,
  context: GraphQLContext,
) => Promise<Outcome>;

export const JSON_UTF8 = 'application/json; charset=utf-8';
