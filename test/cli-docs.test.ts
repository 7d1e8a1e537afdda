import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { README, readmeWithReference } from '../scripts/cli-docs.ts';

describe('README CLI reference', () => {
  it('matches the commands and their help (run npm run docs:cli after changing a command)', () => {
    const readme = readFileSync(README, 'utf8');
    expect(readmeWithReference(readme)).toBe(readme);
  });
});
