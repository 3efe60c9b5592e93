/**
 * GitLab's `NoteableID`: the global id of something a note can be written on. Checked when the
 * input is coerced, so a malformed or wrong-type id is refused before anything runs (as GitLab
 * does), with the same words on both engines (the gate coerces variables; validation coerces
 * literals).
 */
import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';
import { fromGlobalId, toGlobalId } from '../ids.js';

export const NOTEABLE_TYPES = ['Issue', 'MergeRequest', 'Snippet'] as const;
export type NoteableType = (typeof NOTEABLE_TYPES)[number];

export interface NoteableRef {
  type: NoteableType;
  id: number;
}

function noteable(value: unknown): NoteableRef {
  if (typeof value !== 'string') throw new GraphQLError('NoteableID must be a string');
  const gid = fromGlobalId(value);
  if (!gid) throw new GraphQLError(`${JSON.stringify(value)} is not a valid global id`);
  if (!(NOTEABLE_TYPES as readonly string[]).includes(gid.type)) {
    throw new GraphQLError(`${JSON.stringify(value)} does not represent an instance of Noteable`);
  }
  return { type: gid.type as NoteableType, id: gid.id };
}

export const NoteableIdScalar = new GraphQLScalarType<NoteableRef, string>({
  name: 'NoteableID',
  description:
    "The global id of an Issue, MergeRequest or Snippet: ours (as `id` returns it) or GitLab's `gid://gitlab/Issue/1`.",
  serialize(value) {
    const ref = value as NoteableRef;
    return toGlobalId(ref.type, ref.id);
  },
  parseValue: noteable,
  parseLiteral(ast) {
    if (ast.kind !== Kind.STRING) throw new GraphQLError('NoteableID must be a string');
    return noteable(ast.value);
  },
});
