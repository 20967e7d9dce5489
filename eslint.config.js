import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const CATALOG_ASSETS = 'src/projection/catalog/assets/**/*.js';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', '.test-build/', 'coverage/', '.ci/out/'] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    ignores: [CATALOG_ASSETS],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    // The catalog page's script runs in the browser, as a classic script: its parts share one
    // scope (catalog-script.ts joins them), each naming what it takes in a `global` comment.
    files: [CATALOG_ASSETS],
    languageOptions: { sourceType: 'script', globals: { ...globals.browser } },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
);
