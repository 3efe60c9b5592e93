/**
 * A small HTTP client for behaviour tests: one call returns status, headers, raw text and the
 * parsed JSON body, so assertions can pin exact bytes as well as structure.
 */
import { request as httpRequest } from 'node:http';

export interface HttpResult {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON, or undefined when the body is not JSON. */
  body: unknown;
}

export interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

export async function call(
  base: string,
  path: string,
  options: RequestOptions = {},
): Promise<HttpResult> {
  const init: RequestInit = { method: options.method ?? 'GET', redirect: 'manual' };
  if (options.headers) init.headers = options.headers;
  if (options.body !== undefined) init.body = options.body;
  const res = await fetch(`${base}${path}`, init);
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, text, body };
}

/** GET with a personal access token in PRIVATE-TOKEN (or anonymous when token is undefined). */
export function get(
  base: string,
  path: string,
  token?: string,
  headers: Record<string, string> = {},
) {
  return call(base, path, { headers: token ? { 'PRIVATE-TOKEN': token, ...headers } : headers });
}

/** The ids of an event list body. */
export function ids(body: unknown): number[] {
  if (!Array.isArray(body)) throw new Error(`expected an array body, got ${JSON.stringify(body)}`);
  return body.map((e: { id: number }) => e.id);
}

/** The pagination headers as one comparable object (absent headers are null). */
export function pagination(headers: Headers) {
  return {
    page: headers.get('x-page'),
    perPage: headers.get('x-per-page'),
    next: headers.get('x-next-page'),
    prev: headers.get('x-prev-page'),
    total: headers.get('x-total'),
    totalPages: headers.get('x-total-pages'),
  };
}

/** `Link` parsed into [rel, url] pairs in header order, checking GitLab's exact part syntax. */
export function links(headers: Headers): Array<[string, string]> {
  const value = headers.get('link');
  if (value === null) throw new Error('no Link header');
  return value.split(', ').map((part) => {
    const match = /^<([^>]+)>; rel="(prev|next|first|last)"$/.exec(part);
    if (!match) throw new Error(`malformed Link part: ${part}`);
    return [match[2]!, match[1]!];
  });
}

/**
 * A raw request written byte for byte (fetch refuses some of what clients really send, e.g. a
 * Host header of our choosing or unnormalized paths).
 */
export function rawGet(
  base: string,
  path: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<HttpResult> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, method, path, headers, insecureHTTPParser: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const h = new Headers();
          for (const [k, v] of Object.entries(res.headers)) {
            if (v !== undefined) h.set(k, Array.isArray(v) ? v.join(', ') : v);
          }
          let body: unknown;
          try {
            body = JSON.parse(text);
          } catch {
            body = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: h, text, body });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}
