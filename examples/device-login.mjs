#!/usr/bin/env node
// Sign a command-line tool in with pulsegate through the device flow (RFC 8628), using
// openid-client: ask for a code, tell the user where to enter it, poll until they approve, then
// show who signed in (ID token, verified) and what userinfo says.
//
//   PULSEGATE_URL=http://127.0.0.1:3000 CLIENT_ID=<app id> node examples/device-login.mjs
//
// Register a public application (untick "Confidential") with the openid and profile scopes; any
// redirect URI will do, the device flow does not use it.
import * as client from 'openid-client';

const issuer = new URL(process.env.PULSEGATE_URL ?? 'http://127.0.0.1:3000');
const clientId = process.env.CLIENT_ID;
if (!clientId) {
  process.stderr.write('Set CLIENT_ID (and PULSEGATE_URL).\n');
  process.exit(2);
}
const scope = process.env.SCOPE ?? 'openid profile';

// Plain http is for a pulsegate on this machine only.
const execute = [client.enableNonRepudiationChecks];
if (issuer.protocol === 'http:') execute.push(client.allowInsecureRequests);
const config = await client.discovery(issuer, clientId, {}, client.None(), { execute });

const device = await client.initiateDeviceAuthorization(config, { scope });
process.stdout.write(
  `To sign in, open ${device.verification_uri} and enter the code ${device.user_code}\n` +
    `(or open ${device.verification_uri_complete})\n`,
);

try {
  const tokens = await client.pollDeviceAuthorizationGrant(config, device);
  const claims = tokens.claims();
  process.stdout.write(`Signed in as ${claims?.preferred_username ?? claims?.sub}\n`);
  const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
  process.stdout.write(`${JSON.stringify(info, null, 2)}\n`);
} catch (error) {
  // access_denied, expired_token: the user said no, or nobody answered in time.
  process.stderr.write(`Not signed in: ${error.error ?? error.message}\n`);
  process.exit(1);
}
