// The subset of autocannon's API the benchmarks use (the package ships no types).
declare module 'autocannon' {
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    headers?: Record<string, string>;
    method?: string;
    body?: string;
    /** Each request may be rewritten before it is sent (a random path from a mix). */
    requests?: Array<{ setupRequest?: (request: Request) => Request }>;
  }
  interface Request {
    path?: string;
    method?: string;
    body?: string;
    headers?: Record<string, string>;
  }
  interface Histogram {
    average: number;
    p50: number;
    p99: number;
  }
  interface Result {
    /** Per-second rates, and `total`: the requests completed. */
    requests: Histogram & { total: number };
    latency: Histogram;
    errors: number;
    non2xx: number;
  }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
