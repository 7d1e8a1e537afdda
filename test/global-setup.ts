// Before the suite: build the CLI bundle from the current sources, so the `sm` processes that
// tests spawn start fast and run exactly this code (bin/sm.js checks the bundle is fresh).
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export default function setup() {
  execFileSync(process.execPath, [fileURLToPath(new URL('../scripts/build-cli.mjs', import.meta.url))], { stdio: 'inherit' });
}
