// bench:load keeps working: a short run against a real `sm serve` on a small file prints the
// report it promises (its figures are for docs/benchmarks.md, not for a test on a shared machine).
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const TSX = join(import.meta.dirname, '../..', 'node_modules', 'tsx', 'dist', 'cli.mjs');

describe('bench:load', () => {
  it('drives sm serve over HTTP and reports throughput, latency, backlog, lag, memory and the acknowledged turns', {
    timeout: 180_000,
  }, async () => {
    const args = [
      '--json',
      '--size',
      '300',
      '--rate',
      '60',
      '--writers',
      '4',
      '--seconds',
      '2',
      '--clients',
      '1,2',
      '--phase-seconds',
      '1',
      '--idle-seconds',
      '0',
      '--read-workers',
      '1',
    ];
    const { stdout } = await run(
      process.execPath,
      [TSX, join(import.meta.dirname, '../..', 'bench', 'load.ts'), ...args, '--config', 'ner.max_backlog=5'],
      {
        env: { ...process.env, SM_LOG_LEVEL: 'error' },
      },
    );
    const result = JSON.parse(stdout);
    expect(result.machine.cores).toBeGreaterThan(0);
    expect(result.sustained).toMatchObject({ writers: 4, offeredPerSecond: 60, failed: 0 });
    expect(result.sustained.acked).toBeGreaterThan(0);
    expect(result.sustained.latencyMs.p95).toBeGreaterThanOrEqual(result.sustained.latencyMs.p50);
    expect(result.sustained.samples.length).toBeGreaterThan(0);
    // Drained: the job queue and the turns deferred by cheap mode (5 accurate-NER jobs at most here).
    expect(result.sustained.drainSeconds).not.toBeNull();
    expect(result.closedLoop.map((c: { op: string; clients: number }) => `${c.op} ${c.clients}`)).toEqual([
      'search 1',
      'search 2',
      'addTurn 1',
      'addTurn 2',
    ]);
    for (const phase of result.closedLoop)
      expect(phase).toMatchObject({ failed: 0, requestsPerSecond: expect.any(Number) });
    // Search with read workers off, then on: the "on" server's workers answered them.
    expect(
      result.reads.map((p: { workers: number; rows: { clients: number }[] }) => [
        p.workers,
        p.rows.map((r) => r.clients),
      ]),
    ).toEqual([
      [0, [1, 2]],
      [1, [1, 2]],
    ]);
    for (const phase of result.reads)
      for (const row of phase.rows) expect(row).toMatchObject({ failed: 0, requestsPerSecond: expect.any(Number) });
    expect(result.reads[0].rows.every((r: { byWorkers: number }) => r.byWorkers === 0)).toBe(true);
    // One client's reads are each alone (answered on the main thread); two clients' overlap, and go to the worker.
    expect(result.reads[1].rows[0]).toMatchObject({ byWorkers: 0 });
    expect(result.reads[1].rows[1].byWorkers).toBeGreaterThan(0);
    expect(result.acknowledged.lost).toBe(0);
    expect(result.acknowledged.turns).toBe(result.acknowledged.inFile);
    expect(result.firstError).toBeNull();
  });
});
