/**
 * The OpenID Connect part of the provider's metadata (OpenID Connect Discovery 1.0 §3). The same
 * document is served at both well-known paths: OIDC discovery is RFC 8414 metadata with these
 * fields, and a client that discovers with RFC 8414 still needs `jwks_uri` to check ID tokens.
 * Everything listed is implemented; parameters pulsegate does not support are declared false.
 */
import { CLAIMS_SUPPORTED, ID_TOKEN_ALGS } from '../domain/oidc.js';
import { PROMPT_VALUES } from '../domain/oidc-prompt.js';

export const JWKS_PATH = '/oauth/discovery/keys';
export const USERINFO_PATH = '/oauth/userinfo';
export const DEVICE_AUTHORIZATION_PATH = '/oauth/authorize_device';

export function openIdMetadata(issuer: string): Record<string, unknown> {
  return {
    userinfo_endpoint: `${issuer}${USERINFO_PATH}`,
    jwks_uri: `${issuer}${JWKS_PATH}`,
    device_authorization_endpoint: `${issuer}${DEVICE_AUTHORIZATION_PATH}`,
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [...ID_TOKEN_ALGS],
    claims_supported: [...CLAIMS_SUPPORTED],
    claim_types_supported: ['normal'],
    claims_parameter_supported: false,
    request_parameter_supported: false,
    // OIDC Discovery defaults this one to true; pulsegate reads no request objects at all.
    request_uri_parameter_supported: false,
    prompt_values_supported: [...PROMPT_VALUES],
  };
}
