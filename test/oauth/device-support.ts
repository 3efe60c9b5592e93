/** Device flow test support: start a device authorization, poll, and enter the code as a user. */
import assert from 'node:assert/strict';
import type { TestServer } from '../helpers/server.js';
import {
  type Browser,
  type RegisteredApp,
  type Reply,
  basic,
  csrfOf,
  hiddenFields,
  post,
} from './support.js';

export const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

export interface DeviceStart {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

/** Confidential clients authenticate with Basic; public ones send their client_id. */
function clientAuth(
  app: RegisteredApp,
  confidential: boolean,
): { form: Record<string, string>; headers: Record<string, string> } {
  return confidential
    ? { form: {}, headers: { authorization: basic(app.uid, app.secret) } }
    : { form: { client_id: app.uid }, headers: {} };
}

export async function startDevice(
  server: TestServer,
  app: RegisteredApp,
  options: { confidential?: boolean; scope?: string } = {},
): Promise<DeviceStart> {
  const auth = clientAuth(app, options.confidential ?? true);
  const reply = await post(
    server,
    '/oauth/authorize_device',
    { ...auth.form, ...(options.scope ? { scope: options.scope } : {}) },
    auth.headers,
  );
  assert.equal(reply.status, 200, reply.text);
  return reply.body as unknown as DeviceStart;
}

export function poll(
  server: TestServer,
  app: RegisteredApp,
  deviceCode: string,
  confidential = true,
): Promise<Reply> {
  const auth = clientAuth(app, confidential);
  return post(
    server,
    '/oauth/token',
    { ...auth.form, grant_type: DEVICE_GRANT, device_code: deviceCode },
    auth.headers,
  );
}

/** Types the code on /oauth/device; returns the reply (the confirmation page when valid). */
export async function enterCode(browser: Browser, userCode: string): Promise<Reply> {
  const form = await browser.fetch('/oauth/device');
  assert.equal(form.status, 200);
  return browser.fetch('/oauth/device', {
    form: { authenticity_token: csrfOf(form.text), user_code: userCode },
  });
}

/** Enters the code and answers the confirmation page. */
export async function decide(
  browser: Browser,
  userCode: string,
  decision: 'approve' | 'deny',
): Promise<Reply> {
  const page = await enterCode(browser, userCode);
  assert.equal(page.status, 200, page.text);
  return browser.fetch('/oauth/device/confirm', {
    form: { ...hiddenFields(page.text), decision },
  });
}
