// The README is documentation users follow: its CLI reference and config table must match the code.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../server/core/config.ts';
import { README, readmeWithReference } from '../scripts/cli-docs.ts';

const readme = readFileSync(README, 'utf8');

describe('README', () => {
  it('has the CLI reference of the current commands (run npm run docs:cli after changing one)', () => {
    expect(readmeWithReference(readme)).toBe(readme);
  });

  it('documents every config key with its default', () => {
    const missing: string[] = [];
    for (const [section, values] of Object.entries(resolveConfig([]))) {
      for (const [key, value] of Object.entries(values as Record<string, unknown>)) {
        const row = readme.split('\n').find((line) => line.startsWith(`| \`${section}.${key}\` |`));
        const shown = typeof value === 'string' ? (value === '' ? '""' : value) : JSON.stringify(value);
        if (!row || !row.replace(/`/g, '').includes(shown)) missing.push(`${section}.${key} (default ${shown})`);
      }
    }
    expect(missing).toEqual([]);
  });
});
