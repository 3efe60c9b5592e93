/**
 * "Sign in with pulsegate" through OpenID Connect, with openid-client: discovery, PKCE, state and
 * nonce, the code exchange with the ID token validated (signature included: non-repudiation
 * checks), then userinfo. The example server keeps what it learns in the visitor's session.
 */
import * as client from 'openid-client';

export interface OidcLogin {
  verifier: string;
  state: string;
  nonce: string;
}

export interface OidcIdentity {
  claims: client.IDToken;
  userInfo: client.UserInfoResponse;
  accessToken: string;
  refreshToken: string | undefined;
}

export async function oidcClient(issuer: URL, clientId: string, clientSecret: string) {
  const execute = [client.enableNonRepudiationChecks];
  // Plain http is for loopback development only.
  if (issuer.protocol === 'http:') execute.push(client.allowInsecureRequests);
  let config: client.Configuration | undefined;
  const configuration = async () =>
    (config ??= await client.discovery(
      issuer,
      clientId,
      {},
      client.ClientSecretBasic(clientSecret),
      { execute },
    ));

  return {
    /** Where to send the browser, and what to remember until it comes back. */
    async start(redirectUri: string): Promise<{ url: URL; login: OidcLogin }> {
      const login = {
        verifier: client.randomPKCECodeVerifier(),
        state: client.randomState(),
        nonce: client.randomNonce(),
      };
      const url = client.buildAuthorizationUrl(await configuration(), {
        redirect_uri: redirectUri,
        scope: 'openid profile email read_user',
        state: login.state,
        nonce: login.nonce,
        code_challenge: await client.calculatePKCECodeChallenge(login.verifier),
        code_challenge_method: 'S256',
      });
      return { url, login };
    },

    /** The callback: state, iss, code exchange, ID token (signature, nonce, claims), userinfo. */
    async complete(callback: URL, login: OidcLogin): Promise<OidcIdentity> {
      const config = await configuration();
      const tokens = await client.authorizationCodeGrant(config, callback, {
        pkceCodeVerifier: login.verifier,
        expectedState: login.state,
        expectedNonce: login.nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims()!;
      const userInfo = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
      return {
        claims,
        userInfo,
        accessToken: tokens.access_token,
        refreshToken: tokens.refresh_token,
      };
    },
  };
}
