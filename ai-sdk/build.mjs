// Builds dist/esm (ES modules, for `import`) and dist/cjs (CommonJS, for `require`) from src/.
// `npm pack` runs it (prepack). The typed client is built first, into .client/ here: this
// package's types are checked against the client's built declarations (tsconfig paths), as an
// installed copy would give them, and client/dist is left alone. tsc and `ai` are looked up from
// here upwards, so in this repository the root's install builds it and ai-sdk/ needs no
// node_modules of its own.
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const here = new URL('.', import.meta.url);
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [new URL('../client/build.mjs', here).pathname, new URL('.client', here).pathname], {
  stdio: 'inherit',
});
// A clean dist: files of an older build must not end up in the tarball.
rmSync(new URL('dist', here), { recursive: true, force: true });
for (const config of ['tsconfig.json', 'tsconfig.cjs.json']) {
  execFileSync(process.execPath, [tsc, '-p', config], { cwd: here, stdio: 'inherit' });
}
// The package is "type": "module"; this marks dist/cjs/*.js as CommonJS for Node and TypeScript.
writeFileSync(new URL('dist/cjs/package.json', here), '{ "type": "commonjs" }\n');
