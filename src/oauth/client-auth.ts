/**
 * Reading client credentials off a request (RFC 6749 §2.3.1): HTTP Basic with form-urlencoded id
 * and secret (raw values decode to themselves, since ids and secrets use [A-Za-z0-9_-]), or
 * `client_id`/`client_secret` in the body. Never both; never from the query string.
 */
import { OAuthError } from '../domain/oauth.js';
import type { ClientCredentials } from '../services/provider/clients.js';

const BASIC = /^Basic\s+([A-Za-z0-9+/=._~-]+)\s*$/i;

function formDecode(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return value;
  }
}

export function readClientCredentials(
  authorization: string | undefined,
  body: Record<string, string | undefined>,
): ClientCredentials | null {
  const header = authorization?.trim();
  if (header && /^Basic(\s|$)/i.test(header)) {
    const match = BASIC.exec(header);
    const decoded = match ? Buffer.from(match[1]!, 'base64').toString('utf8') : '';
    const colon = decoded.indexOf(':');
    if (colon <= 0) throw new OAuthError('invalid_client', undefined, { basicChallenge: true });
    const clientId = formDecode(decoded.slice(0, colon));
    const clientSecret = formDecode(decoded.slice(colon + 1));
    if (body.client_secret !== undefined) {
      throw new OAuthError(
        'invalid_request',
        'Client credentials were sent both in the Authorization header and in the body.',
      );
    }
    if (body.client_id !== undefined && body.client_id !== clientId) {
      throw new OAuthError(
        'invalid_request',
        'The client_id in the body does not match the Authorization header.',
      );
    }
    return { method: 'basic', clientId, clientSecret };
  }
  if (body.client_id !== undefined) {
    return {
      method: body.client_secret === undefined ? 'none' : 'post',
      clientId: body.client_id,
      clientSecret: body.client_secret,
    };
  }
  if (body.client_secret !== undefined) throw new OAuthError('invalid_client');
  return null;
}
