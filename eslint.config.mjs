import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'node_modules/**', '.e2e/**', '.vscode-test/**', 'test/e2e/tools/**', '.stryker-tmp*/**', 'reports/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
    },
  },
  {
    // The core is pure: it must run in the CLI, in tests and in the extension host alike.
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: 'vscode', message: 'src/core must not depend on vscode; pass what it needs through an interface.' }],
        patterns: [{ group: ['**/ui/**', '**/git/**', 'simple-git'], message: 'src/core must not reach into ui/ or git/.' }],
      }],
    },
  },
  {
    // Only src/git runs git.
    files: ['src/**/*.ts'],
    ignores: ['src/git/**'],
    rules: {
      'no-restricted-syntax': ['error', {
        selector: "ImportDeclaration[source.value='simple-git']",
        message: 'Only src/git/ may use simple-git.',
      }],
    },
  },
  {
    files: ['src/ui/**/*.ts', 'src/extension.ts'],
    rules: { 'no-console': 'error' },
  },
  {
    files: ['**/*.mjs', '**/*.js', '**/*.cjs'],
    languageOptions: { globals: { require: 'readonly', module: 'writable', __dirname: 'readonly', process: 'readonly', console: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
