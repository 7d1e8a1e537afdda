// `npm run codegen`: writes client/src/generated/sdk.ts (see codegen.ts).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateSdk, SDK_FILE } from '../codegen.ts';

const root = join(import.meta.dirname, '..');
const file = join(root, SDK_FILE);
const sdk = await generateSdk(root);
let current: string | undefined;
try {
  current = readFileSync(file, 'utf8');
} catch {
  current = undefined;
}
if (current === sdk) {
  console.log(`${SDK_FILE} is up to date`);
} else {
  writeFileSync(file, sdk);
  console.log(`${SDK_FILE} written`);
}
