/**
 * GraphQL subscriptions over WebSocket at the GraphQL paths, protocol `graphql-transport-ws`
 * (graphql-ws' server core on a `ws` server), for both engines alike.
 *
 * Why one transport rather than Mercurius' own: Mercurius mounts its WebSocket handler on its own
 * GET route, which is off here (the shared gate fronts both engines' HTTP routes), and Apollo Server
 * has no transport of its own at all; with one transport both engines authenticate, limit, close
 * and drop slow consumers identically, and execute the same schema with graphql-js `subscribe`.
 *
 * - Credentials: `connection_init`'s payload or the upgrade request (http/credentials.ts
 *   `socketPrincipal`), re-checked every few seconds: a revoked token, a blocked user or a signed
 *   out session closes the socket with 4403.
 * - Only subscriptions: queries and mutations go over HTTP (rate-limited there).
 * - Bounded: frames up to 64 KiB (larger: 1009), 20 subscriptions per connection and 100 per token
 *   (or per address when anonymous) in this process; a subscriber that does not read is closed with
 *   1013 (Try Again Later) once a message waits 5 s for the socket to take it, 1 MiB waits in the
 *   socket, or its stream's backlog does not drain (services/live); pings every 12 s, a socket
 *   that does not answer is dropped; shutdown closes every socket with 1001.
 * - Bad frames get graphql-ws' protocol close codes (4400 malformed, 4409 duplicate id, 4401
 *   subscribe before init, 4429 init twice, 4408 no init within 3 s); bad operations get an
 *   `error` message with `extensions.code`: the same rule set as HTTP (operation-check.ts).
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { type ExecutionArgs, GraphQLError, type GraphQLSchema } from 'graphql';
import { type Context, CloseCode, handleProtocols, makeServer } from 'graphql-ws';
import { WebSocket, WebSocketServer } from 'ws';
import { isServiceError } from '../domain/errors.js';
import { socketPrincipal } from '../http/credentials.js';
import type { Principal } from '../services/accounts/credentials.js';
import type { Services } from '../services/container.js';
import { SlowConsumerError } from '../services/live/live-activity.js';
import { createContext } from './context.js';
import { type GraphqlCode, RequestError, formatExecutionError, graphqlError } from './errors.js';
import { type CheckedOperation, OperationCheck } from './operation-check.js';

export const LIVE_LIMITS = {
  /** Largest frame accepted; a larger one closes the socket with 1009 (Message Too Big). */
  maxFrameBytes: 64 * 1024,
  perConnection: 20,
  perToken: 100,
  /** Bytes waiting in a socket beyond which its reader is too slow. */
  maxBufferedBytes: 1024 * 1024,
  /** A message the client has not taken (the socket's buffers stay full) for this long: too slow. */
  sendTimeoutMs: 5_000,
  keepAliveMs: 12_000,
  recheckMs: 3_000,
  /** How long closing sockets get to finish the closing handshake at shutdown. */
  closeGraceMs: 1_000,
};

/** 1013 Try Again Later: the server drops a consumer that does not keep up. */
export const SLOW_CONSUMER_CLOSE = 1013;

interface Extra {
  socket: WebSocket;
  request: IncomingMessage;
  principal: Principal | null;
  /** Who the per-token limit counts against. */
  owner: string;
  active: Set<string>;
}

type SocketContext = Context<Record<string, unknown>, Extra>;

function failure(code: GraphqlCode, message: string, cause?: GraphQLError): GraphQLError[] {
  return [
    new GraphQLError(message, {
      ...(cause?.nodes ? { nodes: cause.nodes } : {}),
      extensions: { code },
    }),
  ];
}

const CLIENT_MESSAGES = new Set(['connection_init', 'ping', 'pong', 'subscribe', 'complete']);
const SERVER_MESSAGES = new Set(['connection_ack', 'next', 'error']);

/**
 * False for a well-formed message only a server may send (graphql-ws would treat it as an internal
 * error); true for a client's message; undefined for anything else (graphql-ws answers 4400).
 */
function serverBound(text: string): boolean | undefined {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return undefined;
  }
  const type = (message as { type?: unknown } | null)?.type;
  if (typeof type !== 'string') return undefined;
  if (SERVER_MESSAGES.has(type)) return false;
  return CLIENT_MESSAGES.has(type) ? true : undefined;
}

export function liveSocket(
  app: FastifyInstance,
  services: Services,
  schema: GraphQLSchema,
  paths: readonly string[],
): void {
  const log: FastifyBaseLogger = app.log;
  const perOwner = new Map<string, number>();
  const operations = new OperationCheck(schema);

  const release = (extra: Extra, id: string) => {
    if (!extra.active.delete(id)) return;
    const left = (perOwner.get(extra.owner) ?? 1) - 1;
    if (left <= 0) perOwner.delete(extra.owner);
    else perOwner.set(extra.owner, left);
  };

  const server = makeServer<Record<string, unknown>, Extra>({
    schema,
    onConnect: async (ctx) => {
      try {
        ctx.extra.principal = await socketPrincipal(
          services,
          ctx.extra.request,
          ctx.connectionParams,
        );
      } catch (error) {
        if (isServiceError(error)) return false;
        throw error;
      }
      const principal = ctx.extra.principal;
      ctx.extra.owner = principal
        ? `${principal.kind}:${principal.tokenId}`
        : `address:${ctx.extra.request.socket.remoteAddress ?? ''}`;
      watchCredentials(ctx);
      return true;
    },
    onSubscribe: (ctx, id, payload): ExecutionArgs | readonly GraphQLError[] => {
      const { extra } = ctx;
      let checked: CheckedOperation;
      try {
        checked = operations.check({
          source: payload.query,
          operationName: payload.operationName ?? undefined,
          variables: payload.variables ?? undefined,
          principal: extra.principal,
          transport: 'WebSocket',
        });
      } catch (error) {
        if (!(error instanceof RequestError)) throw error;
        // One error per refusal; only a validation error points at the document.
        const located = error.code === 'GRAPHQL_VALIDATION_FAILED' ? error.details[0] : undefined;
        return failure(error.code, error.message, located);
      }
      if (extra.active.size >= LIVE_LIMITS.perConnection) {
        return failure(
          'RATE_LIMITED',
          `At most ${LIVE_LIMITS.perConnection} subscriptions per connection.`,
        );
      }
      const owned = perOwner.get(extra.owner) ?? 0;
      if (owned >= LIVE_LIMITS.perToken) {
        return failure('RATE_LIMITED', `At most ${LIVE_LIMITS.perToken} subscriptions per token.`);
      }
      extra.active.add(id);
      perOwner.set(extra.owner, owned + 1);
      return {
        schema,
        document: checked.document,
        operationName: payload.operationName ?? undefined,
        variableValues: payload.variables ?? {},
        contextValue: createContext(services, extra.principal, log, undefined, checked.cost),
      };
    },
    onNext: (_ctx, _id, _payload, _args, result) => {
      if (!result.errors) return undefined;
      const report = (error: unknown) => log.error({ err: error }, 'GraphQL resolver failed');
      return {
        ...(result.data !== undefined ? { data: result.data } : {}),
        errors: result.errors.map((error) => formatExecutionError(error as GraphQLError, report)),
      };
    },
    onError: (ctx, _id, _payload, errors) => {
      if (errors.some((error) => error.originalError instanceof SlowConsumerError)) {
        ctx.extra.socket.close(SLOW_CONSUMER_CLOSE, 'Slow consumer');
      }
      return errors.map((error) => {
        const original = error.originalError;
        if (isServiceError(original)) {
          const { message, code } = graphqlError(original);
          return { message, extensions: { code } };
        }
        return formatExecutionError(error, (err) =>
          log.error({ err }, 'GraphQL subscription failed'),
        );
      });
    },
    onComplete: (ctx, id) => {
      release(ctx.extra, id);
    },
    onClose: (ctx) => {
      for (const id of [...ctx.extra.active]) release(ctx.extra, id);
    },
  });

  /** Re-authenticates the connection every few seconds; a refusal closes it with 4403. */
  function watchCredentials(ctx: SocketContext): void {
    const { extra } = ctx;
    const first = extra.principal;
    if (first === null) return;
    let checking = false;
    const timer = setInterval(() => {
      if (checking) return;
      checking = true;
      socketPrincipal(services, extra.request, ctx.connectionParams)
        .then(
          (now) => now !== null && now.user.id === first.user.id && now.tokenId === first.tokenId,
          (error: unknown) => {
            if (isServiceError(error)) return false;
            log.error({ err: error }, 'GraphQL subscription credentials check failed');
            return true;
          },
        )
        .then((valid) => {
          checking = false;
          if (!valid) extra.socket.close(CloseCode.Forbidden, 'Forbidden');
        });
    }, LIVE_LIMITS.recheckMs);
    timer.unref();
    extra.socket.once('close', () => clearInterval(timer));
  }

  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: LIVE_LIMITS.maxFrameBytes,
    handleProtocols: (protocols) => handleProtocols(protocols),
  });

  wss.on('connection', (socket: WebSocket, request: IncomingMessage) => {
    socket.on('error', (error) => {
      // ws has already closed the socket with the right code (1009 for a frame over the limit).
      log.debug({ err: error }, 'GraphQL subscription socket error');
    });
    let pongWait: NodeJS.Timeout | null = null;
    const ping = setInterval(() => {
      if (socket.readyState !== WebSocket.OPEN || pongWait) return;
      pongWait = setTimeout(() => socket.terminate(), LIVE_LIMITS.keepAliveMs);
      socket.ping();
    }, LIVE_LIMITS.keepAliveMs);
    socket.on('pong', () => {
      if (pongWait) clearTimeout(pongWait);
      pongWait = null;
    });
    const extra: Extra = { socket, request, principal: null, owner: '', active: new Set() };
    const closed = server.opened(
      {
        protocol: socket.protocol,
        send: (data) =>
          new Promise<void>((resolve) => {
            if (socket.readyState !== WebSocket.OPEN) return resolve();
            if (socket.bufferedAmount > LIVE_LIMITS.maxBufferedBytes) {
              socket.close(SLOW_CONSUMER_CLOSE, 'Slow consumer');
              return resolve();
            }
            // A client that stops reading fills the kernel's buffers; then nothing is taken.
            const stalled = setTimeout(() => {
              socket.close(SLOW_CONSUMER_CLOSE, 'Slow consumer');
              resolve();
            }, LIVE_LIMITS.sendTimeoutMs);
            // A failed send means the socket is going away; its close handler cleans up.
            socket.send(data, () => {
              clearTimeout(stalled);
              resolve();
            });
          }),
        close: (code, reason) => socket.close(code, reason),
        onMessage: (handle) =>
          socket.on('message', (data, isBinary) => {
            const text = isBinary ? '' : String(data);
            if (serverBound(text) === false) {
              // `next`, `error`, `connection_ack` are the server's to send: a protocol violation.
              socket.close(CloseCode.BadRequest, 'Unexpected message from a client');
              return;
            }
            handle(text).catch((error: unknown) => {
              log.error({ err: error }, 'GraphQL subscription message failed');
              socket.close(CloseCode.InternalServerError, 'Internal server error');
            });
          }),
      },
      extra,
    );
    socket.once('close', (code, reason) => {
      clearInterval(ping);
      if (pongWait) clearTimeout(pongWait);
      closed(code, reason.toString()).catch((error: unknown) =>
        log.error({ err: error }, 'GraphQL subscription close failed'),
      );
    });
  });

  const accepted = new Set(paths);
  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (request.url ?? '').split('?')[0]!;
    if (!accepted.has(path)) {
      // Nobody else takes WebSockets: refuse instead of leaving the socket hanging.
      if (app.server.listenerCount('upgrade') === 1) {
        socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      }
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request));
  };
  app.server.on('upgrade', onUpgrade);

  app.addHook('preClose', async () => {
    app.server.off('upgrade', onUpgrade);
    const open = [...wss.clients];
    for (const socket of open) socket.close(1001, 'Going away');
    await new Promise<void>((resolve) => {
      const deadline = setTimeout(() => {
        for (const socket of wss.clients) socket.terminate();
        resolve();
      }, LIVE_LIMITS.closeGraceMs);
      const check = () => {
        if (wss.clients.size === 0) {
          clearTimeout(deadline);
          resolve();
        }
      };
      for (const socket of open) socket.once('close', check);
      check();
    });
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  });
}
