// The vector benchmark keeps working: bench:scale --vectors on a small file prints the JSON it
// promises (KNN and search latencies, recall against an exact scan, the targets checked).
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '../..');

describe('bench:scale --vectors', () => {
  it('measures KNN, recall@10 and search with vectors for one user and many', { timeout: 120_000 }, async () => {
    const args = [
      join(ROOT, 'node_modules/tsx/dist/cli.mjs'),
      join(ROOT, 'bench/scale.ts'),
      '--vectors',
      '--json',
      '--size',
      '3000',
      '--dimensions',
      '64',
      '--users',
      '1,30',
      '--samples',
      '20',
    ];
    const result = JSON.parse(
      (await run(process.execPath, args, { env: { ...process.env, SM_LOG_LEVEL: 'error' } })).stdout,
    );
    expect(result.machine.cores).toBeGreaterThan(0);
    expect(result.machine.loadAverage).toHaveLength(3);
    expect(result.results.map((r: { users: number }) => r.users)).toEqual([1, 30]);
    for (const r of result.results) {
      for (const figure of [r.knn10Ms, r.knn400Ms, r.searchMs, r.searchWithVectorsMs])
        expect(figure.p95).toBeGreaterThanOrEqual(figure.p50);
      expect(r.recallAt10).toBeGreaterThanOrEqual(0.9);
      expect(r.vectorSignalPer50).toBe(20);
    }
    expect(result.targets).toHaveLength(4);
  });
});
