/**
 * Subscriptions in tests: a graphql-ws client over a real socket that records what it receives,
 * and writes that record events the way every writer does (the recorder inside a transaction, the
 * after-commit hooks once it committed).
 */
import { type Client, type ExecutionResult, createClient } from 'graphql-ws';
import WebSocket from 'ws';
import type { Action } from '../../src/domain/vocabulary.js';
import { EventRecorder } from '../../src/services/content/recorder.js';
import type { Services } from '../../src/services/container.js';
import type { Store } from '../../src/store/store.js';

export const EVENT_FIELDS =
  'databaseId action actionName projectId authorId targetType targetId project { fullPath } author { username }';

export interface ReceivedEvent {
  databaseId: number;
  action: string;
  projectId: number;
  authorId: number;
  [key: string]: unknown;
}

export interface Subscriber {
  events: ReceivedEvent[];
  /** Arrival time (ms, performance.now) of each event. */
  times: number[];
  errors: unknown[];
  completed: boolean;
  /** Resolves once `n` events arrived (rejects after `ms`). */
  waitFor(n: number, ms?: number): Promise<void>;
  /** Resolves once the server completed or errored the subscription. */
  ended: Promise<void>;
}

export interface LiveClient {
  client: Client;
  /** The close event code, once closed. */
  closeCode(): number | undefined;
  closed: Promise<number>;
  subscribe(query: string, variables?: Record<string, unknown>): Subscriber;
  dispose(): Promise<void>;
}

export function wsUrl(base: string, path = '/api/graphql'): string {
  return base.replace(/^http/, 'ws') + path;
}

export function liveClient(
  base: string,
  connectionParams: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): LiveClient {
  let code: number | undefined;
  let resolveClosed!: (code: number) => void;
  const closed = new Promise<number>((resolve) => (resolveClosed = resolve));
  class HeaderSocket extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols, { headers });
    }
  }
  const client = createClient({
    url: wsUrl(base),
    webSocketImpl: HeaderSocket,
    connectionParams,
    retryAttempts: 0,
    lazy: false,
    onNonLazyError: () => {},
    on: {
      closed: (event) => {
        code = (event as { code: number }).code;
        resolveClosed(code);
      },
    },
  });
  return {
    client,
    closeCode: () => code,
    closed,
    subscribe(query, variables) {
      const events: ReceivedEvent[] = [];
      const times: number[] = [];
      const errors: unknown[] = [];
      const waiters: Array<{ n: number; resolve: () => void }> = [];
      let endResolve!: () => void;
      const ended = new Promise<void>((resolve) => (endResolve = resolve));
      const subscriber: Subscriber = {
        events,
        times,
        errors,
        completed: false,
        ended,
        waitFor(n, ms = 5_000) {
          if (events.length >= n) return Promise.resolve();
          return new Promise((resolve, reject) => {
            const timer = setTimeout(
              () => reject(new Error(`got ${events.length} of ${n} events in ${ms} ms`)),
              ms,
            );
            waiters.push({
              n,
              resolve: () => {
                clearTimeout(timer);
                resolve();
              },
            });
          });
        },
      };
      client.subscribe(
        { query, ...(variables ? { variables } : {}) },
        {
          next: (result: ExecutionResult<Record<string, unknown>>) => {
            if (result.errors) errors.push(...result.errors);
            const event = result.data?.eventCreated as ReceivedEvent | undefined;
            if (!event) return;
            events.push(event);
            times.push(performance.now());
            for (const waiter of waiters.filter((w) => events.length >= w.n)) {
              waiters.splice(waiters.indexOf(waiter), 1);
              waiter.resolve();
            }
          },
          error: (error: unknown) => {
            // An `error` message carries a list of GraphQL errors; a closed socket an event.
            if (Array.isArray(error)) errors.push(...(error as unknown[]));
            else errors.push(error);
            endResolve();
          },
          complete: () => {
            subscriber.completed = true;
            endResolve();
          },
        },
      );
      return subscriber;
    },
    dispose: () => client.dispose() as Promise<void>,
  };
}

/** Waits until the server has taken the subscription (its stream exists). */
export async function untilSubscribed(services: Services, count: number, ms = 5_000) {
  const start = Date.now();
  while (services.live.size < count) {
    if (Date.now() - start > ms) throw new Error(`${services.live.size} of ${count} subscriptions`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export interface WriteInput {
  projectId: number;
  authorId: number;
  action: Action;
  targetType?: string | null;
  targetId?: number | null;
  issueId?: number | null;
}

/**
 * One write as every writer makes it: the recorder in a transaction, then the after-commit hooks
 * (`announce: false` leaves them out, as a write made by another process).
 */
export async function writeEvent(
  store: Store,
  services: Services,
  input: WriteInput,
  options: { announce?: boolean } = {},
): Promise<number> {
  const recorder = await store.transaction(async (tx) => {
    const r = new EventRecorder(tx, services.eventHooks, Date.now());
    await r.record({ targetType: null, targetId: null, ...input });
    return r;
  });
  if (options.announce !== false) {
    services.eventHooks.announce(recorder.written, (error) => {
      throw error;
    });
  }
  return recorder.written[0]!.id;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
