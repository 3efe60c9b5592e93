/**
 * GraphQL Code Generator (client preset): typed documents for the operations in
 * `test/graphql/operations/` against the committed `schema.graphql`. Run `npm run codegen`; the
 * output in `src/gql/` is committed and a test fails when it is stale.
 */
import type { CodegenConfig } from '@graphql-codegen/cli';

const config: CodegenConfig = {
  schema: 'schema.graphql',
  documents: ['test/graphql/operations/**/*.graphql'],
  ignoreNoDocuments: false,
  generates: {
    'test/graphql/generated/': {
      preset: 'client',
      presetConfig: { fragmentMasking: false },
      config: {
        useTypeImports: true,
        // ESM with NodeNext resolution needs explicit `.js` suffixes.
        emitLegacyCommonJSImports: false,
        enumsAsTypes: true,
        scalars: { Date: 'string', Time: 'string', SafeInt: 'number' },
      },
    },
  },
};

export default config;
