/**
 * Sends one webhook request safely: the name is resolved once, every address it resolved to is
 * checked, and the connection goes to the checked address (the Host header and TLS name stay the
 * hook's), so a second resolution cannot point it elsewhere. No redirect is followed, the whole
 * exchange is cut off after the timeout, and at most `maxResponseBytes` of the answer are read.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { REFUSAL_TEXT, chooseAddress, parseDestination } from '../../domain/webhook-destination.js';

export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

export const systemResolver: Resolver = (hostname) =>
  dnsLookup(hostname, { all: true, verbatim: true });

export interface OutgoingRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  verifyTls: boolean;
}

export interface SendOptions {
  allowLocal: boolean;
  timeoutMs: number;
  maxResponseBytes: number;
  resolve?: Resolver | undefined;
  signal?: AbortSignal | undefined;
}

export interface SendResult {
  /** The HTTP status, or null when no answer came (refused, unreachable, timed out). */
  status: number | null;
  headers: Record<string, string> | null;
  /** The first `maxResponseBytes` of the body, as text. */
  body: string | null;
  error: string | null;
  /** The destination was refused before any connection was made. */
  refused: boolean;
  /** The address connected to. */
  address: string | null;
}

/** Names under the special-use `invalid.` domain (RFC 6761 §6.4). */
const RESERVED_INVALID = /(^|\.)invalid\.?$/i;

export type CheckedDestination =
  | { ok: true; url: URL; hostname: string; address: string; family: 4 | 6 }
  | { ok: false; error: string };

/** Resolves and checks a hook URL; nothing is connected to. */
export async function checkDestination(
  raw: string,
  allowLocal: boolean,
  resolve: Resolver = systemResolver,
): Promise<CheckedDestination> {
  const parsed = parseDestination(raw, allowLocal);
  if (!parsed.ok) return { ok: false, error: `URL is blocked: ${REFUSAL_TEXT[parsed.refusal]}` };
  const { url, hostname, literal } = parsed.destination;
  let addresses: { address: string; family: number }[];
  if (literal) {
    addresses = [{ address: hostname, family: hostname.includes(':') ? 6 : 4 }];
  } else if (RESERVED_INVALID.test(hostname)) {
    // RFC 6761 §6.4: such names never resolve, so none is asked of DNS (whose lookups wait for a
    // free libuv thread behind password hashing on a busy server).
    return { ok: false, error: `URL is blocked: ${REFUSAL_TEXT.invalid}` };
  } else {
    try {
      addresses = await resolve(hostname);
    } catch {
      return { ok: false, error: `URL is blocked: ${REFUSAL_TEXT.invalid}` };
    }
  }
  const chosen = chooseAddress(addresses, allowLocal);
  if (!chosen.ok) return { ok: false, error: `URL is blocked: ${REFUSAL_TEXT[chosen.refusal]}` };
  return { ok: true, url, hostname, address: chosen.address, family: chosen.family };
}

function flatHeaders(response: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

export async function sendWebhook(
  outgoing: OutgoingRequest,
  options: SendOptions,
): Promise<SendResult> {
  const checked = await checkDestination(outgoing.url, options.allowLocal, options.resolve);
  if (!checked.ok) {
    return {
      status: null,
      headers: null,
      body: null,
      error: checked.error,
      refused: true,
      address: null,
    };
  }
  const { url, hostname, address } = checked;
  const https = url.protocol === 'https:';
  const body = Buffer.from(outgoing.body, 'utf8');
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    const finish = (result: Omit<SendResult, 'refused' | 'address'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      resolve({ ...result, refused: false, address });
    };
    const fail = (error: string) => finish({ status: null, headers: null, body: null, error });
    const request = (https ? httpsRequest : httpRequest)({
      // The checked address, never the name again; Host and SNI still name the hook's host.
      host: address,
      port: url.port || (https ? 443 : 80),
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      headers: {
        ...outgoing.headers,
        host: url.host,
        'content-length': String(body.length),
      },
      agent: false,
      ...(https
        ? {
            servername: hostname.includes(':') ? undefined : hostname,
            rejectUnauthorized: outgoing.verifyTls,
          }
        : {}),
    });
    const timer = setTimeout(() => {
      fail(`Net::ReadTimeout: no answer within ${options.timeoutMs / 1000} s`);
      request.destroy();
    }, options.timeoutMs);
    const onAbort = () => {
      fail('delivery interrupted: the server is stopping');
      request.destroy();
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    request.on('error', (error) => fail(error.message));
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () =>
        finish({
          status: response.statusCode ?? null,
          headers: flatHeaders(response),
          body: Buffer.concat(chunks).toString('utf8'),
          error: null,
        });
      response.on('data', (chunk: Buffer) => {
        const room = options.maxResponseBytes - size;
        if (room > 0) chunks.push(chunk.subarray(0, room));
        size += chunk.length;
        // Enough read: the rest is not wanted, and a receiver streaming forever is cut off.
        if (size >= options.maxResponseBytes) {
          done();
          response.destroy();
        }
      });
      response.on('end', done);
      response.on('error', (error) => fail(error.message));
      response.on('close', done);
    });
    request.end(body);
  });
}
