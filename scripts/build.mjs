// @ts-check
// One esbuild config, several bundles: the extension and CLI for Node (CJS), the core
// as CJS + ESM for library users, and the webview for the browser.
import * as esbuild from 'esbuild';
import { mkdirSync, copyFileSync } from 'node:fs';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

/** @type {import('esbuild').BuildOptions} */
const node = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  sourcemap: !production,
  // Identifiers are never minified, so classes keep the names they were written with
  // (ours and ioredis' ReplyError, whose name is its constructor's). keepNames would do the
  // same by wrapping every closure made at run time in a defineProperty call, which a
  // sequential acquire+release paid on every call (docs/decisions.md, "Lock round costs").
  minifyWhitespace: production,
  minifySyntax: production,
  logLevel: 'warning',
  legalComments: 'none',
};

/**
 * The CLI loads the MCP SDK (src/cli/mcpSdk.ts) from a bundle of its own, and only for
 * `mcp`: its require stays a require of dist/cli-mcp-sdk.js beside dist/cli-main.js.
 * @type {import('esbuild').Plugin}
 */
const mcpSdkApart = {
  name: 'mcp-sdk-apart',
  setup(build) {
    build.onResolve({ filter: /^\.\/mcpSdk$/ }, (args) => {
      if (args.kind !== 'require-call') throw new Error(`${args.importer}: the MCP SDK is loaded only by require() when mcp runs (loadMcpSdk)`);
      return { path: './cli-mcp-sdk.js', external: true };
    });
  },
};

/** @type {import('esbuild').BuildOptions[]} */
const builds = [
  { ...node, entryPoints: ['src/extension/extension.ts'], outfile: 'dist/extension.js', format: 'cjs', external: ['vscode'] },
  // The command (src/cli/bin.ts) runs the CLI's bundle from a V8 code cache.
  { ...node, entryPoints: ['src/cli/bin.ts'], outfile: 'dist/cli.js', format: 'cjs', banner: { js: '#!/usr/bin/env node' } },
  { ...node, entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli-main.js', format: 'cjs', plugins: [mcpSdkApart] },
  { ...node, entryPoints: ['src/cli/mcpSdk.ts'], outfile: 'dist/cli-mcp-sdk.js', format: 'cjs' },
  { ...node, entryPoints: ['scripts/demo.ts'], outfile: 'dist/demo.js', format: 'cjs' },
  // The library keeps ioredis external: users share one copy with their own clients.
  { ...node, minifyWhitespace: false, minifySyntax: false, entryPoints: ['src/core/index.ts'], outfile: 'dist/core/index.js', format: 'cjs', external: ['ioredis'] },
  { ...node, minifyWhitespace: false, minifySyntax: false, entryPoints: ['src/core/index.ts'], outfile: 'dist/core/index.mjs', format: 'esm', external: ['ioredis'] },
  {
    bundle: true, platform: 'browser', target: 'es2022', format: 'esm', sourcemap: !production, minify: production,
    logLevel: 'warning', entryPoints: ['webview/main.ts', 'webview/allLocks.ts'], outdir: 'dist/webview',
  },
];

mkdirSync('dist/webview', { recursive: true });
copyFileSync('node_modules/@vscode/codicons/dist/codicon.css', 'dist/webview/codicon.css');
copyFileSync('node_modules/@vscode/codicons/dist/codicon.ttf', 'dist/webview/codicon.ttf');

if (watch) {
  const contexts = await Promise.all(builds.map((b) => esbuild.context(b)));
  await Promise.all(contexts.map((c) => c.watch()));
  console.log('[watch] build started');
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
}
