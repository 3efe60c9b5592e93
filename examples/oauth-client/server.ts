/**
 * A reference OAuth client for pulsegate, built on oauth4webapi: discovery, PKCE, state, the `iss`
 * check, code exchange, refresh, then the user's latest events from /api/v4/events. A second
 * button signs in through OpenID Connect (./oidc.ts, openid-client) and shows who signed in.
 *
 *   PULSEGATE_URL=http://127.0.0.1:3000 CLIENT_ID=… CLIENT_SECRET=… PORT=4000 \
 *     npx tsx examples/oauth-client/server.ts
 *
 * Register the application at <PULSEGATE_URL>/profile/applications with the redirect URI
 * http://127.0.0.1:<PORT>/callback.
 */
import { randomBytes } from 'node:crypto';
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import { pathToFileURL } from 'node:url';
import * as oauth from 'oauth4webapi';
import { type OidcLogin, oidcClient } from './oidc.js';

export interface ExampleOptions {
  issuer: string;
  clientId: string;
  clientSecret: string;
  port?: number;
  host?: string;
}

interface Session {
  verifier?: string;
  state?: string;
  accessToken?: string;
  refreshToken?: string;
  /** OpenID Connect: the login in progress, then who signed in. */
  oidc?: OidcLogin;
  identity?: { claims: Record<string, unknown>; userInfo: Record<string, unknown> };
}

const escape = (value: unknown) =>
  String(value).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
    'cache-control': 'no-store',
  });
  res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>pulsegate example client</title>
<style>body{font-family:system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem}li{margin:.3rem 0}</style>
</head><body><h1>pulsegate example client</h1>${body}</body></html>`);
}

/** Who signed in, from the verified ID token and from userinfo. */
function identitySection(identity: NonNullable<Session['identity']>): string {
  const { claims, userInfo } = identity;
  return `<h2>Signed in with OpenID Connect</h2>
    <dl id="identity">
      <dt>Subject</dt><dd id="sub">${escape(claims.sub)}</dd>
      <dt>Name</dt><dd id="name">${escape(userInfo.name ?? '')}</dd>
      <dt>E-mail</dt><dd id="email">${escape(userInfo.email ?? '')}</dd>
      <dt>Signed in at</dt><dd>${escape(new Date(Number(claims.auth_time) * 1000).toISOString())}</dd>
    </dl>
    <details><summary>Userinfo</summary><pre id="userinfo">${escape(JSON.stringify(userInfo, null, 2))}</pre></details>`;
}

export async function startExampleClient(options: ExampleOptions) {
  const issuer = new URL(options.issuer);
  // Plain http is for loopback development only; oauth4webapi insists on an explicit opt-in.
  const http = issuer.protocol === 'http:' ? { [oauth.allowInsecureRequests]: true } : {};
  const as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...http }),
  );
  const client: oauth.Client = { client_id: options.clientId };
  const auth = oauth.ClientSecretBasic(options.clientSecret);
  const oidc = await oidcClient(issuer, options.clientId, options.clientSecret);
  const sessions = new Map<string, Session>();
  let redirectUri = '';

  const sessionOf = (req: IncomingMessage, res: ServerResponse): Session => {
    const sid = /(?:^|;\s*)example_sid=([A-Za-z0-9_-]+)/.exec(req.headers.cookie ?? '')?.[1];
    if (sid && sessions.has(sid)) return sessions.get(sid)!;
    const id = randomBytes(24).toString('base64url');
    const session: Session = {};
    sessions.set(id, session);
    res.setHeader('set-cookie', `example_sid=${id}; Path=/; HttpOnly; SameSite=Lax`);
    return session;
  };

  const api = (session: Session, path: string) =>
    oauth.protectedResourceRequest(
      session.accessToken!,
      'GET',
      new URL(`${as.issuer}/api/v4${path}`),
      undefined,
      undefined,
      http,
    );

  const refresh = async (session: Session) => {
    const response = await oauth.refreshTokenGrantRequest(
      as,
      client,
      auth,
      session.refreshToken!,
      http,
    );
    const tokens = await oauth.processRefreshTokenResponse(as, client, response);
    session.accessToken = tokens.access_token;
    session.refreshToken = tokens.refresh_token;
  };

  /** An API call that refreshes once when the access token has expired or was rotated. */
  const apiWithRefresh = async (session: Session, path: string) => {
    try {
      return await api(session, path);
    } catch (error) {
      if (!(error instanceof oauth.WWWAuthenticateChallengeError) || !session.refreshToken)
        throw error;
      await refresh(session);
      return api(session, path);
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', redirectUri);
    const session = sessionOf(req, res);
    if (url.pathname === '/login') {
      session.verifier = oauth.generateRandomCodeVerifier();
      session.state = oauth.generateRandomState();
      const target = new URL(as.authorization_endpoint!);
      target.search = new URLSearchParams({
        client_id: client.client_id,
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: 'read_user',
        state: session.state,
        code_challenge: await oauth.calculatePKCECodeChallenge(session.verifier),
        code_challenge_method: 'S256',
      }).toString();
      res.writeHead(302, { location: target.href }).end();
      return;
    }
    if (url.pathname === '/login-oidc') {
      const { url: target, login } = await oidc.start(redirectUri);
      session.oidc = login;
      res.writeHead(302, { location: target.href }).end();
      return;
    }
    if (url.pathname === '/callback' && session.oidc) {
      const identity = await oidc.complete(url, session.oidc);
      delete session.oidc;
      session.identity = { claims: { ...identity.claims }, userInfo: identity.userInfo };
      session.accessToken = identity.accessToken;
      session.refreshToken = identity.refreshToken;
      res.writeHead(303, { location: '/' }).end();
      return;
    }
    if (url.pathname === '/callback') {
      if (!session.verifier || !session.state)
        return page(res, 400, '<p>No sign-in in progress.</p>');
      // Checks state and iss (pulsegate advertises RFC 9207) and reports error responses.
      const params = oauth.validateAuthResponse(as, client, url, session.state);
      const response = await oauth.authorizationCodeGrantRequest(
        as,
        client,
        auth,
        params,
        redirectUri,
        session.verifier,
        http,
      );
      const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
      session.accessToken = tokens.access_token;
      session.refreshToken = tokens.refresh_token;
      delete session.verifier;
      delete session.state;
      res.writeHead(303, { location: '/' }).end();
      return;
    }
    if (url.pathname === '/refresh' && session.refreshToken) {
      await refresh(session);
      res.writeHead(303, { location: '/' }).end();
      return;
    }
    if (url.pathname !== '/') return page(res, 404, '<p>Not found.</p>');
    if (!session.accessToken) {
      return page(
        res,
        200,
        `<p><a id="sign-in" href="/login">Sign in with pulsegate</a> (OAuth 2.0)</p>
         <p><a id="sign-in-oidc" href="/login-oidc">Sign in with pulsegate</a> (OpenID Connect)</p>`,
      );
    }
    const me = (await (await apiWithRefresh(session, '/user')).json()) as { username: string };
    const events = (await (await apiWithRefresh(session, '/events?per_page=10')).json()) as Array<{
      id: number;
      action_name: string;
      target_type: string | null;
      target_title: string | null;
      created_at: string;
    }>;
    const items = events
      .map(
        (e) =>
          `<li class="event">${escape(e.created_at)} — ${escape(e.action_name)} ${escape(e.target_type ?? '')} ${escape(e.target_title ?? '')}</li>`,
      )
      .join('');
    return page(
      res,
      200,
      `<p>Signed in as <strong id="username">${escape(me.username)}</strong>.
       <a href="/refresh">Refresh the token</a></p>
       ${session.identity ? identitySection(session.identity) : ''}
       <h2>Your latest events</h2><ul id="events">${items || '<li>No events.</li>'}</ul>`,
    );
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      page(
        res,
        502,
        `<p>Something went wrong: ${escape(message)}</p><p><a href="/login">Try again</a></p>`,
      );
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, host, resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const url = `http://${host}:${port}`;
  redirectUri = `${url}/callback`;
  return {
    url,
    redirectUri,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const env = process.env;
  if (!env.CLIENT_ID || !env.CLIENT_SECRET) {
    process.stderr.write('Set CLIENT_ID and CLIENT_SECRET (and PULSEGATE_URL, PORT).\n');
    process.exit(2);
  }
  const started = await startExampleClient({
    issuer: env.PULSEGATE_URL ?? 'http://127.0.0.1:3000',
    clientId: env.CLIENT_ID,
    clientSecret: env.CLIENT_SECRET,
    port: Number(env.PORT ?? 4000),
  });
  process.stdout.write(`example client on ${started.url} (redirect URI ${started.redirectUri})\n`);
}
