// ESLint (flat config): JavaScript + typescript-eslint recommended rules and the React Hooks rules
// (rules of hooks, exhaustive deps and the React Compiler checks) for the SPA; run by `npm run lint`
// and by `make lint`. Type-aware rules are left out: `npm run typecheck` (tsc, strict) covers types.
import { readdirSync } from 'node:fs';
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import { defineConfig, globalIgnores } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const FEATURES = readdirSync(new URL('./src/features', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);
const TEST_FILES = ['**/*.test.{ts,tsx}', 'src/test/**', 'src/features/*/test/**'];

/**
 * Features are used through their index.ts only, so each one can change its inside freely; tests may reach in.
 * CSS stays importable (shared stylesheets such as agents.css). Lazy route modules (`import()` in the router)
 * are not import declarations, so the router still splits each page into its own chunk.
 */
function featureBoundary(own) {
  return {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            group: ['@/features/*/**', ...(own ? [`!@/features/${own}/**`] : []), '!@/features/**/*.css'],
            message: 'Import another feature through its index (@/features/<name>).',
          },
        ],
      },
    ],
  };
}

export default defineConfig([
  globalIgnores(['dist', 'dist.*', 'coverage', 'node_modules']),
  {
    files: ['**/*.{js,mjs,ts,tsx}'],
    extends: [js.configs.recommended, tseslint.configs.recommended],
    languageOptions: { ecmaVersion: 2023 },
    rules: {
      // `_name` marks a deliberately unused parameter or destructured field.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
    },
  },
  {
    files: ['src/**/*.{ts,tsx}'],
    extends: [reactHooks.configs.flat.recommended],
    languageOptions: { globals: globals.browser },
  },
  { files: ['src/**/*.{ts,tsx}'], ignores: TEST_FILES, rules: featureBoundary(null) },
  ...FEATURES.map((feature) => ({
    files: [`src/features/${feature}/**/*.{ts,tsx}`],
    ignores: TEST_FILES,
    rules: featureBoundary(feature),
  })),
  {
    files: ['scripts/**/*.mjs', '*.config.{js,ts}'],
    languageOptions: { globals: globals.node },
  },
]);
