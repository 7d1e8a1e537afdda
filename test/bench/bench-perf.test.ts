// bench:perf keeps working: the performance targets in one run, on a small file, as JSON: the machine's
// cores, every target with its figure and verdict (reads across cores never count as met on fewer
// than 4 cores), and each part's own results.
import { execFile } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '../..');
const TSX = join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');

describe('bench:perf', () => {
  it('measures vectors at scale and sm serve over HTTP in one run, and checks each target', {
    timeout: 180_000,
  }, async () => {
    const small = ['--size', '2000', '--dimensions', '32', '--users', '1,20', '--samples', '10'];
    const load = [
      '--load-size',
      '300',
      '--rate',
      '60',
      '--writers',
      '4',
      '--seconds',
      '2',
      '--clients',
      '1,4',
      '--phase-seconds',
      '1',
      '--idle-seconds',
      '0',
    ];
    const { stdout } = await run(process.execPath, [TSX, join(ROOT, 'bench', 'perf.ts'), '--json', ...small, ...load], {
      env: { ...process.env, SM_LOG_LEVEL: 'error' },
    });
    const result = JSON.parse(stdout);
    expect(result.machine.cores).toBe(availableParallelism());
    expect(result.vectors.map((r: { users: number }) => r.users)).toEqual([1, 20]);
    expect(result.load.acknowledged.lost).toBe(0);
    expect(result.targets.map((t: { point: number }) => t.point)).toEqual([1, 1, 1, 1, 2, 3, 4, 4, 0]);
    for (const target of result.targets) expect(['met', 'MISSED', 'needs 4+ cores']).toContain(target.verdict);
    const reads = result.targets.find((t: { point: number }) => t.point === 2);
    expect(reads.figure).toContain(`on ${result.machine.cores} cores`);
    // The main thread's CPU per search with workers on bounds what more cores could give: reported, never a verdict.
    for (const row of result.load.reads[1].rows) expect(row.mainCpuMsPerSearch).toBeGreaterThan(0);
    for (const row of result.load.reads[1].rows) expect(row.mainCpuMsPerSearch).toBeLessThanOrEqual(row.cpuMsPerSearch);
    expect(reads.figure).toMatch(/at most \d+ requests\/s with cores to spare \([\d.]+x\)/);
    if (result.machine.cores < 4) expect(reads.verdict).toBe('needs 4+ cores');
    else expect(reads.verdict).not.toBe('needs 4+ cores');
    // A verdict follows its figure: the vector targets as vectors.ts judges them, memory by its bounds.
    const idle = result.targets.find((t: { target: string }) => t.target === 'RSS idle <= 100 MB');
    expect(idle.verdict).toBe(result.load.memoryMB.idle <= 100 ? 'met' : 'MISSED');
    expect(result.targets.slice(0, 4).map((t: { verdict: string }) => t.verdict === 'met')).toEqual(
      result.vectors.flatMap((r: { knn400Ms: { p95: number }; searchWithVectorsMs: { p95: number } }) => [
        r.knn400Ms.p95 <= 8,
        r.searchWithVectorsMs.p95 <= 10,
      ]),
    );
  });

  it('refuses a bad flag with exit code 2, naming it', { timeout: 60_000 }, async () => {
    const failed = await run(process.execPath, [TSX, join(ROOT, 'bench', 'perf.ts'), '--samples', 'many']).then(
      () => null,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed?.code).toBe(2);
    expect(failed?.stderr).toContain('--samples');
  });
});
