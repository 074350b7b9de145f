// @ts-check
// Lint: the recommended rules (not the type-checked set, which would need a full program
// per file) plus the import boundaries of docs/architecture.md. The boundaries are the
// point: the core runs without VS Code, the webview runs in a browser.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const nodeModules = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

/** The core's layers, lowest first (docs/architecture.md). */
const coreLayers = ['vocabulary', 'connection', 'bookkeeping', 'read', 'doctor', 'lock'];

/**
 * Floors below a layer that it still may not use: the lock engine writes, and reaches the
 * reads only through src/core/redlock.ts, which joins it to the reader.
 */
const notBeside = { lock: ['read', 'doctor'] };

/** A surface reaches the core through its index, or its words through the vocabulary's. */
const deepCore = { regex: '^\\.{1,2}/(.*/)?core/(?!vocabulary$).+', message: 'Import the core through its index (src/core) or src/core/vocabulary, never a file inside it (docs/architecture.md).' };

/** Paths that import upward out of the core, whatever the relative depth. */
const upward = ['**/extension', '**/extension/**', '**/cli', '**/cli/**', '**/dev', '**/dev/**'];

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'node_modules/**', '.vscode-test/**', '.tools/**', 'media/**', '**/*.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: 'module',
      globals: {
        // Node and browser globals the code uses; `no-undef` is off for TypeScript anyway.
        process: 'readonly', console: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly',
        setInterval: 'readonly', clearInterval: 'readonly', URL: 'readonly', __dirname: 'readonly', fetch: 'readonly',
        AbortSignal: 'readonly', SharedArrayBuffer: 'readonly', Atomics: 'readonly',
      },
    },
    rules: {
      // Unused names prefixed with _ are deliberate (a callback's position, a rest sibling).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
      // Control characters in patterns are the point where keys are escaped.
      'no-control-regex': 'off',
      // `require` is how the test hooks load modules under a stubbed `vscode`.
      '@typescript-eslint/no-require-imports': 'off',
      // `this` aliasing is needed in function-style callbacks that forward `this`.
      '@typescript-eslint/no-this-alias': 'off',
      // Expected CLI output is column-aligned: literal spaces read better than {2}.
      'no-regex-spaces': 'off',
      // A fresh message for the user is the point where scripts rethrow.
      'preserve-caught-error': 'off',
      // A variable declared with a default before a block that sets it reads better than
      // the alternatives; TypeScript already reports what is truly unused.
      'no-useless-assignment': 'off',
      // Style only (let vs const); reviews catch it where it matters.
      'prefer-const': 'off',
    },
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    // Playwright's page.evaluate callbacks run in the page.
    languageOptions: { globals: { document: 'readonly', window: 'readonly' } },
    rules: { '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', caughtErrors: 'none' }] },
  },
  // The core's layers, each importing only those before it (docs/architecture.md), in the
  // manner of VS Code's code-layering rule: an upward arrow, and so any circle between
  // layers, fails lint. Circles inside a layer: scripts/check-cycles.mjs.
  ...coreLayers.map((layer, i) => /** @type {import('eslint').Linter.Config} */ ({
    files: [`src/core/${layer}/**/*.ts`],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [
          { name: 'vscode', message: 'src/core runs outside VS Code (docs/architecture.md).' },
          ...(layer === 'vocabulary' ? [...nodeModules, 'ioredis'] : []),
        ],
        patterns: [
          { group: upward, message: 'src/core never imports src/extension, src/cli or src/dev (docs/architecture.md).' },
          { regex: '^\\.\\.?(/index)?/?$', message: 'A layer never imports the core\'s index: import the module itself.' },
          ...coreLayers.slice(i + 1).map((above) => ({
            group: [`**/${above}`, `**/${above}/**`],
            message: `src/core/${layer} sits below src/core/${above}: it may import only ${coreLayers.slice(0, i + 1).join(', ')} (docs/architecture.md).`,
          })),
          ...(notBeside[layer] ?? []).map((other) => ({
            group: [`**/${other}`, `**/${other}/**`],
            message: `src/core/${layer} does not read: it may not import src/core/${other}; src/core/redlock.ts joins the two (docs/architecture.md).`,
          })),
        ],
      }],
    },
  })),
  {
    files: ['src/core/index.ts', 'src/core/redlock.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [{ name: 'vscode', message: 'src/core runs outside VS Code (docs/architecture.md).' }] }] },
  },
  {
    // Shared wording and protocol: imported by the webview, the extension and the CLI.
    files: ['src/shared/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: 'vscode', message: 'src/shared is also bundled into the webview and the CLI (docs/architecture.md).' }, ...nodeModules],
        patterns: [
          { group: upward, message: 'src/shared never imports src/extension, src/cli or src/dev (docs/architecture.md).' },
          { regex: '^\\.{1,2}/(.*/)?core(/(?!vocabulary(/|$)).*)?$', message: 'src/shared reads only the core\'s words: src/core/vocabulary and its files (docs/architecture.md).' },
        ],
      }],
    },
  },
  {
    // The webview is browser code: no Node module, no `vscode` API (it talks by messages).
    files: ['webview/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: 'vscode', message: 'The webview talks to the extension by messages only.' }, ...nodeModules, 'ioredis'],
        patterns: [
          { group: upward, message: 'The webview imports only src/shared (and types) (docs/architecture.md).' },
          { regex: '^\\.{1,2}/(.*/)?core(/(?!vocabulary(/|$)).*)?$', message: 'The webview reads only the core\'s words: files of src/core/vocabulary that need no Node types (docs/architecture.md).' },
        ],
      }],
    },
  },
  {
    // The CLI never depends on the editor.
    files: ['src/cli/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: 'vscode', message: 'The CLI runs outside VS Code.' }],
        patterns: [{ group: ['**/extension', '**/extension/**'], message: 'The CLI never imports src/extension.' }, deepCore],
      }],
    },
  },
  {
    // The extension and the dev tooling reach the core through its door too.
    files: ['src/extension/**/*.ts', 'src/dev/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [deepCore] }] },
  },
);
