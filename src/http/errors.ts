/**
 * One classification of whatever a route throws, shared by every face's error handler:
 * - a service error keeps the status its code declares (domain/errors.ts);
 * - a framework error in the 4xx range (bad JSON, wrong media type, oversized body, malformed
 *   URL, the rate limiter) is a client problem, named by what went wrong;
 * - the database out of reach (services/health.ts) is `unavailable`: a 503 with Retry-After,
 *   logged as a warning (the operator's problem, not a bug);
 * - anything else is internal: logged here, and answered as a bare 500 by the face.
 * Each face then words the problem in its own shape, in one function.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { type ServiceError, isServiceError } from '../domain/errors.js';
import { UNAVAILABLE_RETRY_AFTER_S, isTemporarilyUnavailable } from '../services/health.js';

export type ClientReason = 'media_type' | 'too_large' | 'bad_url' | 'rate_limited' | 'other';

export type Problem =
  | { kind: 'service'; status: number; error: ServiceError }
  | { kind: 'client'; status: number; reason: ClientReason; message: string }
  | { kind: 'unavailable'; status: 503 }
  | { kind: 'internal'; status: 500 };

const REASONS: Record<string, ClientReason> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'media_type',
  FST_ERR_CTP_BODY_TOO_LARGE: 'too_large',
  FST_ERR_BAD_URL: 'bad_url',
};

export function classify(error: unknown): Problem {
  if (isServiceError(error)) return { kind: 'service', status: error.status, error };
  const { statusCode, code, message } = (error ?? {}) as Partial<FastifyError>;
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
    const reason = statusCode === 429 ? 'rate_limited' : (REASONS[code ?? ''] ?? 'other');
    return { kind: 'client', status: statusCode, reason, message: message ?? '' };
  }
  if (isTemporarilyUnavailable(error)) return { kind: 'unavailable', status: 503 };
  return { kind: 'internal', status: 500 };
}

export type Render = (
  problem: Problem,
  reply: FastifyReply,
  request: FastifyRequest,
) => FastifyReply | Promise<FastifyReply>;

/** A Fastify error handler for one face: classify, log what is internal, let the face answer. */
export function errorHandler(face: string, render: Render) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const problem = classify(error);
    if (problem.kind === 'internal') request.log.error({ err: error }, `unhandled error (${face})`);
    if (problem.kind === 'unavailable') {
      request.log.warn({ err: error }, `database unavailable (${face}): answered 503`);
      reply.header('retry-after', String(UNAVAILABLE_RETRY_AFTER_S));
    }
    return render(problem, reply, request);
  };
}
