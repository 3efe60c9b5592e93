/**
 * Authorization-server metadata (RFC 8414) and OpenID Connect discovery, one document served at
 * both well-known paths with one issuer: the configured external URL, byte for byte — never
 * derived from Host or X-Forwarded-* headers.
 */
import type { FastifyInstance } from 'fastify';
import { PKCE_METHODS } from '../domain/pkce.js';
import { SCOPES } from '../domain/scopes.js';
import type { Services } from '../services/container.js';
import { openIdMetadata } from './discovery.js';
import { sendPreflight, sendPublicJson } from './respond.js';

export const METADATA_PATHS = [
  '/.well-known/oauth-authorization-server',
  '/.well-known/openid-configuration',
] as const;

export function metadataDocument(services: Services): Record<string, unknown> {
  const issuer = services.config.externalUrl;
  const authMethods = ['client_secret_basic', 'client_secret_post'];
  return {
    issuer,
    authorization_endpoint: `${issuer}/oauth/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    revocation_endpoint: `${issuer}/oauth/revoke`,
    introspection_endpoint: `${issuer}/oauth/introspect`,
    scopes_supported: [...SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: services.oauth.provider.grantTypes(),
    token_endpoint_auth_methods_supported: [...authMethods, 'none'],
    revocation_endpoint_auth_methods_supported: [...authMethods, 'none'],
    introspection_endpoint_auth_methods_supported: authMethods,
    code_challenge_methods_supported: [...PKCE_METHODS],
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${issuer}/users/sign_in`,
    ...openIdMetadata(issuer),
  };
}

export function metadataRoutes(app: FastifyInstance, services: Services): void {
  for (const path of METADATA_PATHS) {
    app.get(path, async (_request, reply) =>
      sendPublicJson(reply, metadataDocument(services), 300),
    );
    app.options(path, async (_request, reply) => sendPreflight(reply, 'GET, OPTIONS'));
  }
}
