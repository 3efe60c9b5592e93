// Lint: typescript-eslint's recommended rules, plus the project's own guard rails.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'data/',
      'dist/',
      '.scratch/',
      'src/gql/',
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
);
