// The package version, for the banner, `sm --version` and the MCP server's handshake. This file
// sits three folders below the project root, the CLI bundle (dist/cli/, not a .ts file) two.
import { readFileSync } from 'node:fs';

const PACKAGE_JSON = import.meta.url.endsWith('.ts') ? '../../../package.json' : '../../package.json';

export const VERSION: string = (
  JSON.parse(readFileSync(new URL(PACKAGE_JSON, import.meta.url), 'utf8')) as { version: string }
).version;
