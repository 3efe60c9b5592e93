import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GraphQLContext } from '../context.js';
import type { Prepared } from '../gate.js';

/** Runs an operation the gate has accepted and writes the response. */
export type Executor = (
  request: FastifyRequest,
  reply: FastifyReply,
  prepared: Prepared,
  context: GraphQLContext,
) => Promise<unknown>;

export const JSON_UTF8 = 'application/json; charset=utf-8';
