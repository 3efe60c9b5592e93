/**
 * Prometheus metrics for one server (`/-/metrics`): a registry of its own, so several servers in
 * one process (the tests) never share counters. Services record cache lookups through the small
 * `Metrics` interface; the composition root records requests; the database is read at scrape time.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Pruned } from '../store/events.js';
import type { Store } from '../store/store.js';

/**
 * The whole-result caches: REST offset pages, GraphQL keyset windows, whole GraphQL results, and
 * whole responses kept under a version tag (http/conditional.ts).
 */
export type CacheName = 'rest_page' | 'graphql_window' | 'graphql_result' | 'response';

/** What services and faces record; `noMetrics` records nothing. */
/**
 * What a listing's cached entry needed before answering: nothing (`current`: no new event
 * anywhere), only moving its mark (`skipped`: new events, none of them its own), a walk of its new
 * events (`forwarded`), waiting for another reader's walk of them (`joined`), or starting over
 * (`rebuilt`: an epoch moved, or too many new events).
 */
export type ListingRefresh = 'current' | 'skipped' | 'forwarded' | 'joined' | 'rebuilt';

export interface Metrics {
  /** One lookup in a cache that could have answered (caching on, exact invalidation). */
  cacheLookup(cache: CacheName, hit: boolean): void;
  /** One cached listing checked against the event log. */
  listingRefresh(outcome: ListingRefresh): void;
}

export const noMetrics: Metrics = { cacheLookup: () => {}, listingRefresh: () => {} };

/** Request latency buckets, in seconds: from a cached page to a slow cold listing. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export class PrometheusMetrics implements Metrics {
  readonly registry = new Registry();
  /**
   * How a scrape is answered: this registry's text, or (a worker of `serve --workers N`, see
   * cli/workers.ts) every worker's, aggregated by the primary.
   */
  private gather: () => Promise<string> = () => this.registry.metrics();
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly latency: Histogram<'method' | 'route' | 'status'>;
  private readonly lookups: Counter<'cache' | 'result'>;
  private readonly refreshes: Counter<'outcome'>;
  private readonly lookupSeries = new Map<string, { inc(): void }>();
  private readonly refreshSeries = new Map<string, { inc(): void }>();
  private readonly prunedRows: Counter<'table'>;
  private readonly lastPrune: Gauge;
  private readonly series = new Map<
    string,
    { count: { inc(): void }; latency: { observe(value: number): void } }
  >();

  constructor(store: Store) {
    const registers = [this.registry];
    this.requests = new Counter({
      name: 'pulsegate_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.latency = new Histogram({
      name: 'pulsegate_http_request_duration_seconds',
      help: 'Time to answer HTTP requests, by method, route pattern and status',
      labelNames: ['method', 'route', 'status'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.lookups = new Counter({
      name: 'pulsegate_cache_lookups_total',
      help: 'Lookups in the page/result caches, by cache and result (hit or miss)',
      labelNames: ['cache', 'result'],
      registers,
    });
    for (const cache of ['rest_page', 'graphql_window', 'graphql_result', 'response'] as const) {
      for (const result of ['hit', 'miss']) {
        this.lookupSeries.set(`${cache} ${result}`, this.lookups.labels({ cache, result }));
        this.lookups.inc({ cache, result }, 0);
      }
    }
    this.refreshes = new Counter({
      name: 'pulsegate_listing_refresh_total',
      help: 'Cached listings checked against the event log, by outcome (current, skipped: other listings changed, forwarded: walked its new events, joined: waited for a concurrent walk, rebuilt)',
      labelNames: ['outcome'],
      registers,
    });
    for (const outcome of ['current', 'skipped', 'forwarded', 'joined', 'rebuilt']) {
      this.refreshSeries.set(outcome, this.refreshes.labels({ outcome }));
      this.refreshes.inc({ outcome }, 0);
    }
    this.prunedRows = new Counter({
      name: 'pulsegate_pruned_rows_total',
      help: 'Rows removed by event retention (--retain-events), by table: events, push_event_payloads, webhook_deliveries',
      labelNames: ['table'],
      registers,
    });
    for (const table of ['events', 'push_event_payloads', 'webhook_deliveries']) {
      this.prunedRows.inc({ table }, 0);
    }
    this.lastPrune = new Gauge({
      name: 'pulsegate_prune_last_run_seconds',
      help: 'How long the last retention run took (all its batches, pauses included)',
      registers,
      // Each worker prunes on its own: the longest run is the one to look at.
      aggregator: 'max',
    });
    new Gauge({
      name: 'pulsegate_db_pool_connections',
      help: 'Database connections by state (PostgreSQL pools, the main one and the one for listing counts: total, idle, waiting, max; SQLite: one embedded connection), summed over the server’s worker processes',
      labelNames: ['state'],
      registers,
      collect() {
        const stats = store.poolStats();
        if (!stats) {
          this.set({ state: 'total' }, 1);
          return;
        }
        this.set({ state: 'total' }, stats.total);
        this.set({ state: 'idle' }, stats.idle);
        this.set({ state: 'waiting' }, stats.waiting);
        this.set({ state: 'max' }, stats.max);
      },
    });
    new Gauge({
      name: 'pulsegate_events_newest_id',
      help: 'The highest event id in the database: events are only appended, so rate() of this is the event rate',
      registers,
      // Every worker reads the same database: their values are one value, not parts of a sum.
      aggregator: 'max',
      async collect() {
        this.set(await store.events.newestId());
      },
    });
  }

  cacheLookup(cache: CacheName, hit: boolean): void {
    this.lookupSeries.get(`${cache} ${hit ? 'hit' : 'miss'}`)!.inc();
  }

  listingRefresh(outcome: ListingRefresh): void {
    this.refreshSeries.get(outcome)!.inc();
  }

  /** Rows one retention batch removed (services/retention.ts). */
  pruned(removed: Pruned): void {
    this.prunedRows.inc({ table: 'events' }, removed.events);
    this.prunedRows.inc({ table: 'push_event_payloads' }, removed.pushPayloads);
    this.prunedRows.inc({ table: 'webhook_deliveries' }, removed.webhookDeliveries);
  }

  /** A retention run ended after `seconds`. */
  ran(seconds: number): void {
    this.lastPrune.set(seconds);
  }

  /** `route` is the route's pattern (`/api/v4/projects/:id/events`), never the requested URL. */
  request(method: string, route: string, status: number, seconds: number): void {
    // prom-client hashes a label object on every call; the series of one method, route and
    // status are looked up once and kept (routes are patterns, so there are few of them).
    const key = `${method} ${status} ${route}`;
    let series = this.series.get(key);
    if (!series) {
      const labels = { method, route, status: String(status) };
      series = { count: this.requests.labels(labels), latency: this.latency.labels(labels) };
      this.series.set(key, series);
    }
    series.count.inc();
    series.latency.observe(seconds);
  }

  /** Answers scrapes with `gather`'s text instead of this registry's (set once, at start). */
  gatherWith(gather: () => Promise<string>): void {
    this.gather = gather;
  }

  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.gather() };
  }
}
