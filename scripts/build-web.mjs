// Builds the inspector (web/src) into web/dist: one minified ES module and one stylesheet with
// content-hashed names under assets/, index.html pointing at them, and .br/.gz siblings of each
// for the host to send as they are. npm install runs it (prepare), and so does the test suite's
// global setup, so the page always matches the sources. `--watch` rebuilds on every change.
import { build, context } from 'esbuild';
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const root = new URL('../web/', import.meta.url).pathname;
const outdir = `${root}dist/`;
const watch = process.argv.includes('--watch');

// The typed client's model tools (client/src/tools.ts: zod schemas for function calling, about
// 450 KB) are of no use in a page: the build puts a stand-in there, so the first load is a third
// of the size. The client's queries, mutations and subscriptions are untouched.
const TOOLS_STUB = `export const TOOLS = [];
export class ToolError extends Error {}
export const toolNamed = () => undefined;
export function parseToolArguments() { throw new ToolError('model tools are not part of the inspector'); }
export function toolDefinitions() { return []; }
export async function executeTool() { throw new ToolError('model tools are not part of the inspector'); }`;
const clientTools = new URL('../client/src/tools.ts', import.meta.url).pathname;
const withoutModelTools = {
  name: 'without-model-tools',
  setup(build) {
    build.onLoad({ filter: /[\\/]client[\\/]src[\\/]tools\.ts$/ }, (args) =>
      args.path === clientTools ? { contents: TOOLS_STUB, loader: 'js' } : undefined,
    );
  },
};

const options = {
  entryPoints: { app: `${root}src/main.tsx` },
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: ['chrome110', 'firefox115', 'safari16'],
  minify: true,
  jsx: 'automatic',
  jsxImportSource: 'preact',
  entryNames: 'assets/[name]-[hash]',
  assetNames: 'assets/[name]-[hash]',
  define: { 'process.env.NODE_ENV': '"production"' },
  metafile: true,
  legalComments: 'none',
  plugins: [withoutModelTools],
  logLevel: 'warning',
};

/** index.html and the compressed siblings, from a finished build's metafile, written into `dir`. */
function finish(dir, metafile) {
  const outputs = Object.keys(metafile.outputs).map((path) => basename(path));
  const script = outputs.find((name) => name.endsWith('.js'));
  const style = outputs.find((name) => name.endsWith('.css'));
  const html = readFileSync(`${root}src/index.html`, 'utf8')
    .replace('<!--style-->', style ? `<link rel="stylesheet" href="/assets/${style}">` : '')
    .replace('<!--script-->', `<script type="module" src="/assets/${script}"></script>`);
  writeFileSync(`${dir}index.html`, html);
  writeFileSync(`${dir}favicon.svg`, readFileSync(`${root}src/favicon.svg`));
  for (const file of [`${dir}index.html`, ...outputs.map((name) => `${dir}assets/${name}`)]) {
    const data = readFileSync(file);
    writeFileSync(`${file}.gz`, gzipSync(data, { level: 9 }));
    writeFileSync(`${file}.br`, brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
  }
}

if (watch) {
  const ctx = await context({
    ...options,
    outdir,
    plugins: [
      withoutModelTools,
      { name: 'finish', setup: (b) => b.onEnd((result) => result.metafile && finish(outdir, result.metafile)) },
    ],
  });
  await ctx.watch();
  console.log(`watching ${root}src, writing ${outdir}`);
} else {
  // Built beside the served folder, then swapped in: a running server never sees half a build.
  const staging = `${root}.dist-${process.pid}/`;
  rmSync(staging, { recursive: true, force: true });
  const result = await build({ ...options, outdir: staging });
  finish(staging, result.metafile);
  const old = `${root}.dist-old-${process.pid}/`;
  mkdirSync(outdir, { recursive: true });
  renameSync(outdir, old);
  renameSync(staging, outdir);
  rmSync(old, { recursive: true, force: true });
  // Leftovers of an interrupted build.
  for (const name of readdirSync(root)) {
    if (name.startsWith('.dist-') && Date.now() - statSync(root + name).mtimeMs > 600_000)
      rmSync(root + name, { recursive: true, force: true });
  }
}
