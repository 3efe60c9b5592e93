/**
 * What a schema does not say: how the fields of one record go together, and checks that need the
 * decoded value (scope names in either spelling, the ref of a push). Runs on a record that
 * passed its kind's schema; throws RecordError with the reason.
 */
import { type PushInput, splitRef } from '../domain/push-payload.js';
import { PERSONAL_TOKEN_SCOPES, SCOPES } from '../domain/scopes.js';
import { isPasswordHash } from '../domain/secrets.js';
import { RecordError } from './record-errors.js';
import type { DataRecord, EventRecord } from './record-kinds.js';

const DIGEST = /^[0-9a-f]{64}$/;

function fail(message: string): never {
  throw new RecordError(message);
}

export function checkRules(r: DataRecord): void {
  switch (r.kind) {
    case 'user':
      // Which secret was given is checked before its form: "both" is the mistake to report.
      if (r.password != null && r.password_hash != null) {
        fail('give either "password" or "password_hash", not both');
      }
      if (r.password_hash != null && !isPasswordHash(r.password_hash)) {
        fail('"password_hash" is not a pulsegate scrypt hash');
      }
      return;
    case 'event':
      return checkEvent(r);
    case 'personal_access_token':
      if ((r.token == null) === (r.token_digest == null)) {
        fail('give exactly one of "token" or "token_digest"');
      }
      if (r.token_digest != null && !DIGEST.test(r.token_digest)) {
        fail('"token_digest" must be 64 lowercase hex digits (SHA-256)');
      }
      // Personal access tokens grant API access only; the OIDC scopes belong to applications.
      return checkScopes(r.scopes, PERSONAL_TOKEN_SCOPES);
    case 'oauth_application':
      return checkScopes(r.scopes, SCOPES);
    default:
      return;
  }
}

function checkScopes(scopes: readonly string[], allowed: readonly string[]): void {
  if (scopes.length === 0) fail('"scopes" must name at least one scope');
  const unknown = scopes.filter((s) => !allowed.includes(s));
  if (unknown.length) {
    fail(`"scopes" has unknown scope ${unknown.join(', ')} (allowed: ${allowed.join(', ')})`);
  }
}

function checkEvent(r: EventRecord): void {
  if ((r.target_type == null) !== (r.target_id == null)) {
    fail('"target_type" and "target_id" must both be set or both be null');
  }
  if (r.push != null) checkPush(r.push);
  if (r.action === 'pushed' && r.push == null) fail('a "pushed" event needs a "push" object');
  if (r.action !== 'pushed' && r.push != null) fail('only "pushed" events carry a "push" object');
}

function checkPush(p: PushInput): void {
  const split = splitRef(p.ref);
  if (split.short === '') fail('"push.ref" names no branch or tag');
  if (p.refType !== undefined && split.refType !== null && split.refType !== p.refType) {
    fail(`"push.ref" ${p.ref} contradicts "push.ref_type" ${p.refType}`);
  }
  if (p.commitCount < p.commits.length) {
    fail('"push.commit_count" is smaller than the number of commits');
  }
}
