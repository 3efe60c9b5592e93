/**
 * Opaque identifiers of the GraphQL face: global node ids and connection cursors. Both are
 * base64url text so clients treat them as opaque; decoding is strict (one canonical spelling), so
 * a tampered value is rejected instead of silently meaning something else.
 */
import { isBigRowId, isRowId } from '../domain/ids.js';

export const NODE_TYPES = [
  'User',
  'Project',
  'Event',
  'Issue',
  'MergeRequest',
  'Milestone',
  'Note',
  'Snippet',
] as const;
export type NodeTypeName = (typeof NODE_TYPES)[number];

/** Types whose ids are 64-bit (migration 026): valid up to 2^53 − 1; the others stay 32-bit. */
const BIG_ID_TYPES: ReadonlySet<NodeTypeName> = new Set(['Event', 'Issue', 'MergeRequest', 'Note']);

const TYPES = NODE_TYPES.join('|');
const GID = new RegExp(`^gid://pulsegate/(${TYPES})/([1-9]\\d{0,15})$`);
/** GitLab's spelling, accepted as written (not base64) wherever an `ID` is taken. */
const GITLAB_GID = new RegExp(`^gid://gitlab/(${TYPES})/([1-9]\\d{0,15})$`);
const CURSOR = /^event:([1-9]\d{0,15})$/;

function encode(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}

/** Decodes base64url only when re-encoding gives the same string back. */
function decode(value: string): string | null {
  if (value.length === 0 || value.length > 96 || !/^[A-Za-z0-9_-]+$/.test(value)) return null;
  const text = Buffer.from(value, 'base64url').toString('utf8');
  return encode(text) === value ? text : null;
}

export function toGlobalId(type: NodeTypeName, id: number): string {
  return encode(`gid://pulsegate/${type}/${id}`);
}

/** Our opaque id, or GitLab's `gid://gitlab/<Type>/<id>` written out. */
export function fromGlobalId(value: string): { type: NodeTypeName; id: number } | null {
  const text = decode(value);
  const match = text === null ? GITLAB_GID.exec(value) : GID.exec(text);
  if (!match) return null;
  const type = match[1] as NodeTypeName;
  const id = Number(match[2]);
  return (BIG_ID_TYPES.has(type) ? isBigRowId(id) : isRowId(id)) ? { type, id } : null;
}

/** A keyset cursor: the event id the page continues from (ordering is by id in both sorts). */
export function encodeCursor(eventId: number): string {
  return encode(`event:${eventId}`);
}

export function decodeCursor(value: string): number | null {
  const text = decode(value);
  const match = text === null ? null : CURSOR.exec(text);
  if (!match) return null;
  const id = Number(match[1]);
  return isBigRowId(id) ? id : null;
}

/**
 * The numeric id or path an `ID` argument names: a global id of the expected type (either
 * spelling) becomes its numeric id; anything else is passed on as written.
 */
export function idArgument(value: string, type: NodeTypeName): string {
  const gid = fromGlobalId(value);
  return gid && gid.type === type ? String(gid.id) : value;
}
