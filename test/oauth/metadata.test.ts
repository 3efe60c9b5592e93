import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as oauth from 'oauth4webapi';
import * as client from 'openid-client';
import { type OAuthWorld, get, startOAuthServer } from './support.js';

describe('authorization server metadata (RFC 8414)', () => {
  let world: OAuthWorld;
  before(async () => {
    world = await startOAuthServer();
  });
  after(() => world.close());

  it('serves one document at both well-known paths; issuer is the external URL byte for byte', async () => {
    const a = await get(world.server, '/.well-known/oauth-authorization-server');
    const b = await get(world.server, '/.well-known/openid-configuration');
    assert.equal(a.status, 200);
    assert.equal(a.headers.get('content-type'), 'application/json');
    assert.equal(a.headers.get('access-control-allow-origin'), '*');
    assert.deepEqual(a.body, b.body);
    const base = world.server.url;
    assert.equal(a.body.issuer, base);
    for (const key of [
      'authorization_endpoint',
      'token_endpoint',
      'revocation_endpoint',
      'introspection_endpoint',
    ]) {
      assert.ok(String(a.body[key]).startsWith(`${base}/oauth/`), key);
    }
    assert.deepEqual(a.body.grant_types_supported, [
      'authorization_code',
      'password',
      'refresh_token',
      'urn:ietf:params:oauth:grant-type:device_code',
    ]);
    assert.deepEqual(a.body.response_types_supported, ['code']);
    assert.ok(
      (a.body.token_endpoint_auth_methods_supported as string[]).includes('client_secret_basic'),
    );
    assert.ok(
      (a.body.token_endpoint_auth_methods_supported as string[]).includes('client_secret_post'),
    );
    assert.deepEqual(a.body.code_challenge_methods_supported, ['S256', 'plain']);
    assert.equal(a.body.authorization_response_iss_parameter_supported, true);
  });

  it('B.23/D14: forged Host / X-Forwarded-* change nothing', async () => {
    const forged = await get(world.server, '/.well-known/oauth-authorization-server', {
      'x-forwarded-host': 'evil.example',
      'x-forwarded-proto': 'https',
      host: 'evil.example',
    });
    assert.equal(forged.body.issuer, world.server.url);
    assert.ok(!JSON.stringify(forged.body).includes('evil'));
  });

  it('an https external URL is used verbatim', async () => {
    const other = await startOAuthServer({ config: { externalUrl: 'https://pulse.example.org' } });
    try {
      const meta = await get(other.server, '/.well-known/openid-configuration');
      assert.equal(meta.body.issuer, 'https://pulse.example.org');
      assert.equal(meta.body.token_endpoint, 'https://pulse.example.org/oauth/token');
    } finally {
      await other.close();
    }
  });

  it('oauth4webapi processDiscoveryResponse accepts it (oauth2 and oidc)', async () => {
    const issuer = new URL(world.server.url);
    for (const algorithm of ['oauth2', 'oidc'] as const) {
      const res = await oauth.discoveryRequest(issuer, {
        algorithm,
        [oauth.allowInsecureRequests]: true,
      });
      const as = await oauth.processDiscoveryResponse(issuer, res);
      assert.equal(as.issuer, world.server.url);
    }
  });

  it('openid-client discovery accepts it in both modes', async () => {
    for (const options of [{ algorithm: 'oauth2' as const }, {}]) {
      const config = await client.discovery(
        new URL(world.server.url),
        world.app.uid,
        world.app.secret,
        undefined,
        {
          execute: [client.allowInsecureRequests],
          ...options,
        },
      );
      assert.equal(config.serverMetadata().issuer, world.server.url);
    }
  });

  it('CORS preflight on token and metadata', async () => {
    for (const path of [
      '/oauth/token',
      '/oauth/revoke',
      '/.well-known/oauth-authorization-server',
    ]) {
      const res = await fetch(`${world.server.url}${path}`, {
        method: 'OPTIONS',
        headers: { origin: 'https://spa.example', 'access-control-request-method': 'POST' },
      });
      assert.equal(res.status, 204, path);
      assert.equal(res.headers.get('access-control-allow-origin'), '*', path);
    }
  });
});
