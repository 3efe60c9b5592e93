// Lint: typescript-eslint's recommended rules, plus the project's own guard rails.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Folder names of the faces. Service groups (services/activity, accounts, provider) never reuse them,
// so a path segment names one layer.
const FACES = ['rest', 'graphql', 'oauth', 'web', 'feeds'];

/** One `no-restricted-imports` block per layer: what each folder of src/ may not import. */
function layerRules() {
  const restricted = (files, patterns) => ({
    files,
    rules: { 'no-restricted-imports': ['error', { patterns }] },
  });
  const folder = (name, why) => ({ regex: `(^|/)${name}/`, message: why });
  const store = folder(
    'store',
    'Faces reach data through services (src/services), never the store: see docs/ARCHITECTURE.md.',
  );
  // Applied migrations are frozen history: live code keeps its own copy of what it shares with one.
  const migrations = {
    regex: '(^|/)migrations/',
    message:
      'Only store/migrate.ts and migrations import a migration; share SQL through a store module.',
  };
  const kysely = {
    regex: '^kysely$',
    message: 'SQL lives in the store (src/store): it alone speaks Kysely.',
  };
  const above = [migrations, kysely];
  const storeRules = [...FACES, 'http', 'services', 'data'].map((layer) =>
    folder(layer, 'The store is the bottom layer: it imports only domain/ and itself.'),
  );
  const faceRules = FACES.map((face) =>
    restricted(
      [`src/${face}/**/*.ts`],
      [
        ...above,
        store,
        ...FACES.filter((other) => other !== face).map((other) =>
          folder(
            other,
            `A face never imports another face (${other}/); share it in http/ or below.`,
          ),
        ),
        folder('data', 'Data tooling (import, export, seed) is for the CLI, not for requests.'),
      ],
    ),
  );
  return [
    restricted(['src/**/*.ts'], above),
    ...faceRules,
    restricted(
      ['src/http/**/*.ts'],
      [
        ...above,
        store,
        ...FACES.map((face) => folder(face, 'http/ serves every face and imports none.')),
      ],
    ),
    restricted(
      ['src/services/**/*.ts'],
      [
        ...above,
        ...[...FACES, 'http'].map((face) =>
          folder(face, 'Services never know which face calls them.'),
        ),
        folder('data', 'Request services do not depend on data tooling.'),
      ],
    ),
    restricted(['src/store/**/*.ts'], [migrations, ...storeRules]),
    restricted(['src/store/migrations/**/*.ts', 'src/store/migrate.ts'], storeRules),
    restricted(
      ['src/domain/**/*.ts'],
      [
        {
          // ipaddr.js is pure too: a table of address ranges, no I/O.
          regex: '^(?!\\./|node:|ipaddr\\.js$)',
          message:
            'domain/ is pure: it imports only domain/ (and node: built-ins, ipaddr.js), nothing else.',
        },
      ],
    ),
  ];
}

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'data/',
      'dist/',
      '.scratch/',
      'test/graphql/generated/',
      'test-artifacts/',
      'bench/results/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        URLSearchParams: 'readonly',
        fetch: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        crypto: 'readonly',
        AbortController: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        Response: 'readonly',
        Headers: 'readonly',
        document: 'readonly',
        window: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    // Secrets are compared only through secretsEqual (constant time), never with === / !==.
    files: ['src/**/*.ts'],
    ignores: ['src/domain/secrets.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            "BinaryExpression[operator=/^[!=]==?$/]:not([right.type='Literal']):not([right.name='undefined']) > MemberExpression.left[property.name=/(secret|token|verifier|password|digest)$/i]",
          message: 'Compare secrets with secretsEqual() from domain/secrets.ts (constant time).',
        },
        {
          selector:
            "BinaryExpression[operator=/^[!=]==?$/]:not([right.type='Literal']):not([right.name='undefined']) > Identifier.left[name=/(secret|token|verifier|password)$/i]",
          message: 'Compare secrets with secretsEqual() from domain/secrets.ts (constant time).',
        },
      ],
    },
  },
  // The house's one-way flow (docs/ARCHITECTURE.md): faces → services → store and domain.
  ...layerRules(),
);
