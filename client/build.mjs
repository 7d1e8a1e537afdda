// Builds dist/esm (ES modules, for `import`) and dist/cjs (CommonJS, for `require`) from src/.
// `npm pack` runs it (prepack). tsc is looked up from here upwards, so in this repository the
// root's TypeScript builds it and client/ needs no node_modules of its own.
// `node build.mjs DIR` builds into DIR instead of dist/ (the AI SDK package type-checks against
// a copy of its own, so that building it never touches a dist/ being packed at the same time).
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = new URL('.', import.meta.url);
const out = process.argv[2] ? resolve(process.argv[2]) : fileURLToPath(new URL('dist', here));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
// A clean output: files of an older build must not end up in the tarball.
rmSync(out, { recursive: true, force: true });
for (const [config, format] of [
  ['tsconfig.json', 'esm'],
  ['tsconfig.cjs.json', 'cjs'],
]) {
  execFileSync(process.execPath, [tsc, '-p', config, '--outDir', resolve(out, format)], {
    cwd: here,
    stdio: 'inherit',
  });
}
// The package is "type": "module"; this marks dist/cjs/*.js as CommonJS for Node and TypeScript.
writeFileSync(resolve(out, 'cjs/package.json'), '{ "type": "commonjs" }\n');
