// The check `npm test` runs first (scripts/test-prerequisites.mjs): on this machine, where every
// package is installed, it passes silently, as root and as an unprivileged user; against an empty
// file system root it finds all four missing, and its plan installs them as root or stops with
// the exact apt-get command otherwise.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const SCRIPT = join(ROOT, 'scripts/test-prerequisites.mjs');

type Prerequisite = { pkg: string; why: string };
type Plan = { action: 'none' | 'install' | 'stop'; packages?: string[]; lines: string[] };
const { missingPrerequisites, plan } = (await import(pathToFileURL(SCRIPT).href)) as {
  missingPrerequisites(root?: string): Prerequisite[];
  plan(missing: Prerequisite[], how: { isRoot: boolean; hasApt: boolean }): Plan;
};

const empty = mkdtempSync(join(tmpdir(), 'sm-prerequisites-'));
afterAll(() => rmSync(empty, { recursive: true, force: true }));

describe('test prerequisites', () => {
  it('npm test runs the check, then the formatter and linter, before the type check and the tests, and CI runs npm test', () => {
    const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(scripts.test).toMatch(
      /^node scripts\/test-prerequisites\.mjs && biome check \. && tsc --noEmit && vitest run/,
    );
    const ci = readFileSync(join(ROOT, '.ci/run'), 'utf8');
    expect(ci).toMatch(/^npm test$/m);
    expect(ci).not.toMatch(/apt-get/);
  });

  it('passes silently on this machine, where everything is installed', () => {
    expect(missingPrerequisites().map((p) => p.pkg)).toEqual([]);
    const result = spawnSync(process.execPath, [SCRIPT], { encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it('passes as an unprivileged user too (nothing to install)', () => {
    if (process.getuid?.() !== 0) return expect(spawnSync(process.execPath, [SCRIPT]).status).toBe(0);
    const result = spawnSync('runuser', ['-u', 'nobody', '--', process.execPath, SCRIPT], { encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(execFileSync('runuser', ['-u', 'nobody', '--', 'id', '-u'], { encoding: 'utf8' }).trim()).not.toBe('0');
  });

  it('on a bare system finds all four missing; root installs them, anyone else gets the command and a stop', () => {
    const missing = missingPrerequisites(empty);
    expect(missing.map((p) => p.pkg)).toEqual(['chromium', 'postgresql', 'python3-httpx', 'python3-pytest']);
    const asRoot = plan(missing, { isRoot: true, hasApt: true });
    expect(asRoot.action).toBe('install');
    expect(asRoot.packages).toEqual(['chromium', 'postgresql', 'python3-httpx', 'python3-pytest']);
    expect(asRoot.lines[0]).toBe('Installing what the tests need: chromium, postgresql, python3-httpx, python3-pytest');
    const asUser = plan(missing, { isRoot: false, hasApt: true });
    expect(asUser.action).toBe('stop');
    expect(asUser.lines).toContain('  sudo apt-get install -y chromium postgresql python3-httpx python3-pytest');
    expect(asUser.lines).toContain('  chromium (for the inspector browser tests)');
    // Only what is missing is named.
    expect(plan(missing.slice(2), { isRoot: false, hasApt: true }).lines.at(-1)).toBe(
      '  sudo apt-get install -y python3-httpx python3-pytest',
    );
    expect(plan(missing, { isRoot: true, hasApt: false }).action).toBe('stop');
    expect(plan([], { isRoot: false, hasApt: true })).toEqual({ action: 'none', lines: [] });
  });
});
