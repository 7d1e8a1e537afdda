// Bundles the `sm` CLI into one CommonJS file, dist/cli/sm.cjs, so a command starts in a fraction
// of the time tsx needs to load a few hundred modules through its loader. Pure-JS packages are
// bundled too (graphql with every package that uses it, so the bundle holds one copy); native
// addons stay outside. CommonJS because Node 20 caches compiled code only for it (bin/sm.js turns
// the cache on): parts imported lazily (the HTTP stack for `sm serve`) are compiled from the cache
// and run only when a command needs them. bin/sm.js uses the bundle while it is newer than every
// source file, and tsx otherwise.
import { build } from 'esbuild';
import { mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';

// render-graphiql is GraphiQL whole (9 MB): loaded from node_modules on the first GraphiQL page,
// not parsed by every command.
const EXTERNAL = ['better-sqlite3', 'sqlite-vec', 'pino-pretty', 'esbuild', 'tsx', 'bufferutil', 'utf-8-validate', '@graphql-yoga/render-graphiql'];
const outdir = new URL('../dist/cli/', import.meta.url).pathname;
const staging = `${outdir}sm.cjs.staging-${process.pid}`;
mkdirSync(outdir, { recursive: true });
await build({
  entryPoints: [new URL('../server/cli/main.ts', import.meta.url).pathname],
  outfile: staging,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  minify: true,
  keepNames: true,
  external: EXTERNAL,
  // The sources locate files beside them with import.meta.url; the bundle, two folders below the
  // root like the sources, answers with its own location.
  define: { 'import.meta.url': '__smImportMetaUrl' },
  banner: { js: "const __smImportMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
  logLevel: 'warning',
});
// One rename: a running `sm` keeps the file it opened.
renameSync(staging, `${outdir}sm.cjs`);
// What earlier layouts left (ESM chunks), and staging files of builds that died.
for (const name of readdirSync(outdir)) if (name !== 'sm.cjs') rmSync(outdir + name, { recursive: true, force: true });
