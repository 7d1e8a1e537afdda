// The package version, for the banner, `sm --version` and the MCP server's handshake. This file and
// the CLI bundle (dist/cli/) both sit two folders below the project root.
import { readFileSync } from 'node:fs';

export const VERSION: string = (
  JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
