/**
 * A typed GraphQL client for tests: sends a generated document (test/graphql/generated) to a running server and
 * returns status, headers and the parsed body typed by the operation.
 */
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { type DocumentNode, print } from 'graphql';
import type { GraphqlEngine } from '../../src/config.js';

export const ENGINES: GraphqlEngine[] = ['mercurius', 'apollo'];

export interface GqlError {
  message: string;
  path?: Array<string | number>;
  extensions?: { code?: string };
}

export interface GqlResponse<T> {
  status: number;
  headers: Headers;
  body: { data?: T | null; errors?: GqlError[] };
}

export interface GqlOptions {
  token?: string;
  headers?: Record<string, string>;
  path?: string;
}

export async function gql<R, V>(
  base: string,
  document: TypedDocumentNode<R, V>,
  variables?: V,
  options: GqlOptions = {},
): Promise<GqlResponse<R>> {
  return raw<R>(base, print(document as DocumentNode), variables, options);
}

/** Any query text (for error cases a typed document cannot express). */
export async function raw<T = unknown>(
  base: string,
  query: string,
  variables?: unknown,
  options: GqlOptions = {},
): Promise<GqlResponse<T>> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    ...(options.token ? { 'PRIVATE-TOKEN': options.token } : {}),
    ...options.headers,
  };
  const res = await fetch(`${base}${options.path ?? '/api/graphql'}`, {
    method: 'POST',
    headers,
    body: JSON.stringify(variables === undefined ? { query } : { query, variables }),
  });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    body: JSON.parse(text) as GqlResponse<T>['body'],
  };
}

/** The codes of a response's errors, in order. */
export function codes(body: { errors?: GqlError[] }): Array<string | undefined> {
  return (body.errors ?? []).map((e) => e.extensions?.code);
}
