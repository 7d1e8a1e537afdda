#!/usr/bin/env node
// The `sm` executable. It runs the bundle in dist/cli (fast start, built by `npm run build:cli`,
// which `npm install` runs) while that is newer than every source file; otherwise it runs the
// TypeScript directly through tsx, so an edited checkout never runs stale code. An installed
// package (`npm install -g symbiosis-memory`) has the bundle and no sources: it always runs that.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';

// A server (`sm serve`, `sm mcp`) holds V8's young generation from the first line: loading the
// code would grow it past the size the server then keeps it at (server/young-generation.ts).
const args = process.argv.slice(2);
if (args.includes('serve') || args.includes('mcp')) setFlagsFromString('--semi-space-growth-factor=1');

const root = new URL('..', import.meta.url);
const bundle = new URL('dist/cli/sm.mjs', root);
const SOURCES = ['server', 'drizzle', 'client/src'];

function newestSource() {
  let newest = 0;
  for (const dir of SOURCES) {
    for (const entry of readdirSync(new URL(dir, root), { withFileTypes: true, recursive: true })) {
      if (entry.isFile()) newest = Math.max(newest, statSync(`${entry.parentPath}/${entry.name}`).mtimeMs);
    }
  }
  return newest;
}

function bundleIsFresh() {
  if (!existsSync(new URL('server', root))) return true;
  try {
    return statSync(bundle).mtimeMs >= newestSource();
  } catch {
    return false;
  }
}

if (process.env.SM_NO_BUNDLE !== '1' && bundleIsFresh()) {
  await import(bundle.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../server/cli/main.ts');
}
