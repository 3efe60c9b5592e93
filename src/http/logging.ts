/**
 * The request log: one line per request (method, URL, status, time, request id), written as JSON
 * for machines or as a plain line for people (pino-pretty, in this process). The line that a
 * request arrived is kept for `debug`: it tells which request hung, and is noise otherwise.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { LogController } from 'fastify';
import PinoPretty from 'pino-pretty';
import type { LogFormat } from '../config.js';

export class RequestLog extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    if (this.isLogDisabled(request)) return;
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (this.isLogDisabled(request)) return;
    const fields = { req: request, res: reply, responseTime: reply.elapsedTime };
    if (error) reply.log.error({ ...fields, err: error }, 'request errored');
    else reply.log.info(fields, 'request completed');
  }
}

interface Line {
  req?: { method?: string; url?: string };
  res?: { statusCode?: number };
  responseTime?: number;
  reqId?: string;
  [key: string]: unknown;
}

/** `GET /api/v4/events 200 3.1 ms [req 5f0c…]`; any other line, its message and request id. */
function message(line: Line, messageKey: string): string {
  const id = line.reqId ? ` [req ${line.reqId}]` : '';
  const { req, res, responseTime } = line;
  if (req && res && typeof responseTime === 'number') {
    const outcome = line[messageKey] === 'request errored' ? ' (errored)' : '';
    return `${req.method} ${req.url} ${res.statusCode} ${responseTime.toFixed(1)} ms${outcome}${id}`;
  }
  const text = String(line[messageKey] ?? '');
  return req ? `${text}: ${req.method} ${req.url}${id}` : `${text}${id}`;
}

/**
 * Where the logger writes: JSON lines to `destination` (stdout when absent), or for `pretty`
 * a stream that turns each into one line for people. Colours only on a terminal.
 */
export function logDestination(
  format: LogFormat,
  destination: { write(line: string): unknown } | undefined,
): { write(line: string): unknown } | undefined {
  if (format === 'json') return destination;
  return PinoPretty({
    destination: (destination as NodeJS.WritableStream | undefined) ?? 1,
    // Synchronous on stdout, as pino's own default: the last lines before an exit are kept.
    sync: destination === undefined,
    colorize: destination === undefined && process.stdout.isTTY === true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,reqId,req,res,responseTime',
    singleLine: true,
    messageFormat: (line, messageKey) => message(line as Line, messageKey),
  });
}
