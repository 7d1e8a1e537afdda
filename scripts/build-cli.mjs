// Bundles the `sm` CLI into dist/cli, so a command starts in a fraction of the time tsx needs to
// load a few hundred modules through its loader. ESM with chunks: a command loads only the chunks
// it imports (tried: one CommonJS file with a compiled-code cache started --version 60 ms slower
// and searched no faster). bin/sm.js uses the bundle only while it is newer than every source
// file, and tsx otherwise.
import { build } from 'esbuild';
import { mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';

// render-graphiql is GraphiQL whole (9 MB): loaded from node_modules on the first GraphiQL page,
// not parsed by every command. PGlite finds its WebAssembly and data files beside its own module.
const EXTERNAL = [
  'better-sqlite3',
  'sqlite-vec',
  'pino-pretty',
  'esbuild',
  'tsx',
  'bufferutil',
  'utf-8-validate',
  '@graphql-yoga/render-graphiql',
  '@electric-sql/pglite',
  '@electric-sql/pglite-pgvector',
];
// zod's `z` namespace re-exports every locale (40-odd message tables, 260 KB of the 470 KB zod
// bundles to), and a namespace cannot be tree-shaken: every command that validates input would
// compile them all. Nothing here sets a locale, so the bundle gets English only (zod's default).
const englishOnlyZod = {
  name: 'english-only-zod',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/]/.test(args.importer) ? { path: 'zod-locales', namespace: 'english-only-zod' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'english-only-zod' }, () => ({
      contents: "export { default as en } from 'zod/v4/locales/en.js';",
      resolveDir: root,
    }));
  },
};
const root = new URL('..', import.meta.url).pathname;
const outdir = new URL('../dist/cli/', import.meta.url).pathname;
const staging = `${outdir}.staging-${process.pid}/`;
await build({
  // The read workers' thread (server/services/read-pool.ts) starts from a module of its own beside sm.mjs.
  entryPoints: {
    sm: new URL('../server/cli/main.ts', import.meta.url).pathname,
    'read-worker': new URL('../server/services/read-worker.ts', import.meta.url).pathname,
  },
  outdir: staging,
  bundle: true,
  // Lazily imported parts (the HTTP stack for `sm serve`) become chunks loaded only when used.
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Pure-JS packages are bundled too (graphql with every package that uses it, so the bundle holds
  // one copy): resolving and compiling a few hundred module files cost more than the command
  // itself. Native addons stay outside, and pino-pretty, which the logger loads by name on a terminal.
  minify: true,
  keepNames: true,
  external: EXTERNAL,
  banner: {
    js: "import { createRequire as __smCreateRequire } from 'node:module'; const require = __smCreateRequire(import.meta.url);",
  },
  outExtension: { '.js': '.mjs' },
  plugins: [englishOnlyZod],
  logLevel: 'warning',
});
// Chunks have content-hashed names: move them in beside the old ones (a running `sm` may still
// load an old chunk), then swap the entry in one rename, and drop chunks older than an hour.
mkdirSync(outdir, { recursive: true });
const started = Date.now();
for (const name of readdirSync(staging)) if (name !== 'sm.mjs') renameSync(staging + name, outdir + name);
renameSync(`${staging}sm.mjs`, `${outdir}sm.mjs`);
rmSync(staging, { recursive: true, force: true });
for (const name of readdirSync(outdir)) {
  const path = outdir + name;
  if (
    name.startsWith('.staging-')
      ? started - statSync(path).mtimeMs > 600_000
      : name !== 'sm.mjs' && started - statSync(path).mtimeMs > 3_600_000
  ) {
    rmSync(path, { recursive: true, force: true });
  }
}
