// `npm run codegen`: writes client/src/generated/sdk.ts (see codegen.ts) and the Python client's
// generated module and tools file (see scripts/python-codegen.ts).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { generateSdk, SDK_FILE } from '../codegen.ts';
import { generatePython } from './python-codegen.ts';

const root = join(import.meta.dirname, '..');

function write(path: string, content: string) {
  const file = join(root, path);
  let current: string | undefined;
  try {
    current = readFileSync(file, 'utf8');
  } catch {
    current = undefined;
  }
  if (current === content) {
    console.log(`${path} is up to date`);
  } else {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, content);
    console.log(`${path} written`);
  }
}

write(SDK_FILE, await generateSdk(root));
// The Python client is generated from the operations above, the schema and the model tools.
for (const [path, content] of Object.entries(generatePython(root))) write(path, content);
