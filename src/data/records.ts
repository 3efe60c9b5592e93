/**
 * The import/export format: newline-delimited JSON, one record per line, each with a `kind`.
 * This module parses and validates each kind (types, enums, formats); record-types.ts declares the
 * kinds, record-format.ts writes their canonical text, and whether the ids a record points at exist
 * is the ledger's business (record-references.ts).
 */
import { isEmail, isUsername } from '../domain/account-names.js';
import { redirectUriProblem } from '../domain/redirect-uri.js';
import { SCOPES } from '../domain/scopes.js';
import { digest, isPasswordHash } from '../domain/secrets.js';
import { type PushCommit, type PushInput, splitRef } from '../domain/push-payload.js';
import {
  ACCESS_LEVEL_VALUES,
  ACTIONS,
  NOTEABLE_TYPES,
  PUSH_ACTIONS,
  REF_TYPES,
  TARGET_CLASSES,
  USER_STATES,
  VISIBILITIES,
} from '../domain/vocabulary.js';
import { RecordFields, RecordError, isPlainObject } from './record-fields.js';
import {
  type DataRecord,
  ISSUE_STATES,
  MERGE_REQUEST_STATES,
  RECORD_KINDS,
  type RecordKind,
} from './record-types.js';

export { RecordError } from './record-fields.js';
export * from './record-types.js';

const NAME_SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;
const SHA = /^[0-9a-f]{40}$/;
const DIGEST = /^[0-9a-f]{64}$/;
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const TITLE_MAX = 255;
const TEXT_MAX = 1_000_000;

/** `YYYY-MM-DD` naming a real calendar day. */
export function isCalendarDay(value: string): boolean {
  const m = DAY.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}

/** Parses one line of the format. Throws RecordError with the reason (the caller adds the line). */
export function parseRecordLine(text: string): DataRecord {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new RecordError('not valid JSON');
  }
  return parseRecord(value);
}

export function parseRecord(value: unknown): DataRecord {
  if (!isPlainObject(value)) throw new RecordError('a record must be a JSON object');
  const kind = value.kind;
  if (typeof kind !== 'string' || !(RECORD_KINDS as readonly string[]).includes(kind)) {
    throw new RecordError(`"kind" must be one of ${RECORD_KINDS.join(', ')}`);
  }
  const f = new RecordFields(value, kind);
  const record = PARSERS[kind as RecordKind](f);
  f.done();
  return record;
}

const PARSERS: { [K in RecordKind]: (f: RecordFields) => DataRecord } = {
  user: (f) => {
    const password = f.optionalString('password', { max: 1024 });
    const passwordHash = f.optionalString('password_hash', { max: 1024 });
    if (password !== null && passwordHash !== null) {
      throw new RecordError('give either "password" or "password_hash", not both');
    }
    if (password === '') throw new RecordError('"password" must not be empty');
    if (passwordHash !== null && !isPasswordHash(passwordHash)) {
      throw new RecordError('"password_hash" is not a pulsegate scrypt hash');
    }
    const username = f.string('username', { max: 255 });
    if (!isUsername(username)) throw new RecordError('"username" has invalid characters');
    const email = f.string('email', { max: 254 });
    if (!isEmail(email)) throw new RecordError('"email" is not an e-mail address');
    return {
      kind: 'user',
      id: f.id('id'),
      username,
      name: f.string('name', { max: TITLE_MAX }),
      email,
      state: f.oneOf('state', USER_STATES, 'active'),
      password,
      password_hash: passwordHash,
      admin: f.bool('admin', false),
      two_factor_enabled: f.bool('two_factor_enabled', false),
      private_profile: f.bool('private_profile', false),
      avatar_url: f.optionalString('avatar_url', { max: 2048 }),
      created_at: f.optionalTime('created_at'),
    };
  },
  project: (f) => {
    const namespace = f.string('namespace', { max: 255 });
    if (!namespace.split('/').every((s) => NAME_SEGMENT.test(s))) {
      throw new RecordError('"namespace" must be path segments separated by "/"');
    }
    const path = f.string('path', { max: 255 });
    if (!NAME_SEGMENT.test(path)) throw new RecordError('"path" has invalid characters');
    return {
      kind: 'project',
      id: f.id('id'),
      namespace,
      path,
      name: f.optionalString('name', { max: TITLE_MAX }) ?? path,
      description: f.optionalString('description', { max: TEXT_MAX, empty: true }) ?? '',
      visibility: f.oneOf('visibility', VISIBILITIES),
      creator_id: f.id('creator_id'),
      created_at: f.optionalTime('created_at'),
    };
  },
  member: (f) => ({
    kind: 'member',
    project_id: f.id('project_id'),
    user_id: f.id('user_id'),
    access_level: f.oneOf('access_level', ACCESS_LEVEL_VALUES),
  }),
  milestone: (f) => ({
    kind: 'milestone',
    id: f.id('id'),
    project_id: f.id('project_id'),
    iid: f.id('iid'),
    title: f.string('title', { max: TITLE_MAX }),
    created_at: f.optionalTime('created_at'),
  }),
  issue: (f) => ({
    kind: 'issue',
    id: f.id('id'),
    project_id: f.id('project_id'),
    iid: f.id('iid'),
    title: f.string('title', { max: TITLE_MAX }),
    author_id: f.id('author_id'),
    confidential: f.bool('confidential', false),
    state: f.oneOf('state', ISSUE_STATES, 'opened'),
    created_at: f.optionalTime('created_at'),
  }),
  merge_request: (f) => ({
    kind: 'merge_request',
    id: f.id('id'),
    project_id: f.id('project_id'),
    iid: f.id('iid'),
    title: f.string('title', { max: TITLE_MAX }),
    author_id: f.id('author_id'),
    state: f.oneOf('state', MERGE_REQUEST_STATES, 'opened'),
    created_at: f.optionalTime('created_at'),
  }),
  snippet: (f) => ({
    kind: 'snippet',
    id: f.id('id'),
    project_id: f.optionalId('project_id'),
    title: f.string('title', { max: TITLE_MAX }),
    author_id: f.id('author_id'),
    visibility: f.oneOf('visibility', VISIBILITIES),
    created_at: f.optionalTime('created_at'),
  }),
  note: (f) => ({
    kind: 'note',
    id: f.id('id'),
    project_id: f.id('project_id'),
    author_id: f.id('author_id'),
    body: f.string('body', { max: TEXT_MAX }),
    noteable_type: f.oneOf('noteable_type', NOTEABLE_TYPES),
    noteable_id: f.id('noteable_id'),
    system: f.bool('system', false),
    attachment: f.optionalString('attachment', { max: 2048 }),
    created_at: f.time('created_at'),
    updated_at: f.optionalTime('updated_at'),
  }),
  event: (f) => {
    const action = f.oneOf('action', ACTIONS);
    const targetType = f.nullableOneOf('target_type', TARGET_CLASSES);
    const targetId = f.optionalId('target_id');
    if ((targetType === null) !== (targetId === null)) {
      throw new RecordError('"target_type" and "target_id" must both be set or both be null');
    }
    const push = f.optionalNested('push', parsePush);
    if (action === 'pushed' && push === null) {
      throw new RecordError('a "pushed" event needs a "push" object');
    }
    if (action !== 'pushed' && push !== null) {
      throw new RecordError('only "pushed" events carry a "push" object');
    }
    return {
      kind: 'event',
      id: f.id('id'),
      project_id: f.id('project_id'),
      author_id: f.id('author_id'),
      action,
      target_type: targetType,
      target_id: targetId,
      created_at: f.time('created_at'),
      push,
    };
  },
  personal_access_token: (f) => {
    const token = f.optionalString('token', { max: 1024 });
    const tokenDigest = f.optionalString('token_digest', { max: 64 });
    if ((token === null) === (tokenDigest === null)) {
      throw new RecordError('give exactly one of "token" or "token_digest"');
    }
    if (tokenDigest !== null && !DIGEST.test(tokenDigest)) {
      throw new RecordError('"token_digest" must be 64 lowercase hex digits (SHA-256)');
    }
    const expiresAt = f.optionalString('expires_at', { max: 10 });
    if (expiresAt !== null && !isCalendarDay(expiresAt)) {
      throw new RecordError('"expires_at" must be a date YYYY-MM-DD');
    }
    return {
      kind: 'personal_access_token',
      id: f.id('id'),
      user_id: f.id('user_id'),
      name: f.string('name', { max: TITLE_MAX }),
      token_digest: tokenDigest ?? digest(token!),
      scopes: f.scopes('scopes', SCOPES),
      expires_at: expiresAt,
      revoked: f.bool('revoked', false),
      created_at: f.optionalTime('created_at'),
      last_used_at: f.optionalTime('last_used_at'),
    };
  },
  oauth_application: (f) => {
    const uid = f.string('uid', { max: 255 });
    if (!/^[A-Za-z0-9_-]+$/.test(uid))
      throw new RecordError('"uid" must be made of A-Z a-z 0-9 _ -');
    const secretDigest = f.string('secret_digest', { max: 64 });
    if (!DIGEST.test(secretDigest)) {
      throw new RecordError('"secret_digest" must be 64 lowercase hex digits (SHA-256)');
    }
    const redirectUris = f.stringList('redirect_uris', { max: 2048 });
    if (redirectUris.length === 0)
      throw new RecordError('"redirect_uris" must list at least one URI');
    for (const uri of redirectUris) {
      const problem = redirectUriProblem(uri);
      if (problem) throw new RecordError(`"redirect_uris": ${problem}`);
    }
    return {
      kind: 'oauth_application',
      id: f.id('id'),
      uid,
      secret_digest: secretDigest,
      name: f.string('name', { max: TITLE_MAX }),
      redirect_uris: redirectUris,
      scopes: f.scopes('scopes', SCOPES),
      confidential: f.bool('confidential', true),
      owner_id: f.id('owner_id'),
      created_at: f.optionalTime('created_at'),
    };
  },
};

function parsePush(f: RecordFields): PushInput {
  const ref = f.string('ref', { max: 1024 });
  const refType = f.has('ref_type') ? f.oneOf('ref_type', REF_TYPES) : undefined;
  const split = splitRef(ref);
  if (split.short === '') throw new RecordError(`${f.label('ref')} names no branch or tag`);
  if (refType !== undefined && split.refType !== null && split.refType !== refType) {
    throw new RecordError(`${f.label('ref')} ${ref} contradicts ${f.label('ref_type')} ${refType}`);
  }
  const sha = (key: string) => {
    const value = f.optionalString(key, { max: 40 });
    if (value !== null && !SHA.test(value)) {
      throw new RecordError(`${f.label(key)} must be 40 lowercase hex digits or null`);
    }
    return value;
  };
  const before = sha('before');
  const after = sha('after');
  const commits = f.list('commits', parseCommit);
  const commitCount = f.has('commit_count') ? f.count('commit_count') : commits.length;
  if (commitCount < commits.length) {
    throw new RecordError(`${f.label('commit_count')} is smaller than the number of commits`);
  }
  return {
    action: f.has('action') ? f.oneOf('action', PUSH_ACTIONS) : undefined,
    refType,
    ref,
    before,
    after,
    commitCount,
    commits,
  };
}

function parseCommit(f: RecordFields): PushCommit {
  const id = f.string('id', { max: 64 });
  const message = f.string('message', { max: TEXT_MAX, empty: true });
  const timestamp = f.string('timestamp', { max: 64 });
  const url = f.string('url', { max: 2048, empty: true });
  const author = f.nested('author', (a) => ({
    name: a.string('name', { max: TITLE_MAX, empty: true }),
    email: a.string('email', { max: 254, empty: true }),
  }));
  return { id, message, timestamp, url, author };
}
