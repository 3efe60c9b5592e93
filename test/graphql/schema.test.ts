/**
 * The committed artifacts follow the code: `schema.graphql` is what the code builds, and the typed
 * documents in `test/graphql/generated/` are what codegen produces from it (run `npm run codegen` to refresh).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { describe, it } from 'node:test';
import { type CodegenConfig, generate } from '@graphql-codegen/cli';
import { schemaText } from '../../src/graphql/schema.js';

const root = new URL('../../', import.meta.url);
// codegen.ts sits outside src/ and test/; loaded at run time like the codegen CLI loads it.
const { default: config } = (await import(new URL('codegen.ts', root).href)) as {
  default: CodegenConfig;
};

describe('GraphQL schema and codegen artifacts', () => {
  it('schema.graphql matches the code-first schema', async () => {
    const committed = readFileSync(new URL('schema.graphql', root), 'utf8');
    assert.equal(committed, await schemaText(), 'schema.graphql drifted: run `npm run schema`');
  });

  it('test/graphql/generated matches what codegen generates from schema.graphql and the operations', async () => {
    const outputs = (await generate(
      { ...config, cwd: root.pathname, silent: true },
      false,
    )) as Array<{
      filename: string;
      content: string;
    }>;
    assert.deepEqual(outputs.map((o) => basename(o.filename)).sort(), [
      'gql.ts',
      'graphql.ts',
      'index.ts',
    ]);
    for (const output of outputs) {
      const committed = readFileSync(
        new URL(`test/graphql/generated/${basename(output.filename)}`, root),
        'utf8',
      );
      assert.equal(
        committed,
        output.content,
        `test/graphql/generated/${basename(output.filename)} is stale: run \`npm run codegen\``,
      );
    }
  });
});
