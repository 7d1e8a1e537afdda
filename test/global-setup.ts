// Before the suite: build the CLI bundle from the current sources, so the `sm` processes that
// tests spawn start fast and run exactly this code (bin/sm.js checks the bundle is fresh), and
// the inspector (web/dist), so the browser tests open the page of these sources.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export default function setup() {
  for (const script of ['build-cli.mjs', 'build-web.mjs']) {
    execFileSync(process.execPath, [fileURLToPath(new URL(`../scripts/${script}`, import.meta.url))], {
      stdio: 'inherit',
    });
  }
}
