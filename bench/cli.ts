// CLI start-up as a person feels it: wall time of `sm --version` and of an embedded `sm search`
// on a database of N synthetic turns + facts, each a fresh process, beside a bare `node -e 0`
// in the same run (the floor no command can go under). Targets: --version <= 150 ms, search
// <= 300 ms (p50).
//   npm run bench:cli -- [--json] [--size 1000] [--runs 15]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { closeStore, openStore } from '../server/db/open.ts';
import { runMain } from './run-main.ts';
import { build, rng } from './scale.ts';
import { percentile, round } from './stats.ts';

const SM = fileURLToPath(new URL('../bin/sm.js', import.meta.url));
export const TARGETS = { versionMs: 150, searchMs: 300 } as const;

function wallTimes(args: string[], runs: number, env: NodeJS.ProcessEnv): number[] {
  const times: number[] = [];
  for (let i = 0; i < runs + 1; i++) {
    const t0 = performance.now();
    execFileSync(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    // The first run warms the OS file cache and is not counted.
    if (i > 0) times.push(performance.now() - t0);
  }
  return times;
}

export function benchCli(size: number, runs: number) {
  const dir = mkdtempSync(join(tmpdir(), 'sm-bench-cli-'));
  const path = join(dir, 'cli.db');
  const store = openStore({ path, env: {} });
  build(store, size, rng(5));
  closeStore(store);
  const env = { ...process.env, SM_DB: path, SM_LOG_LEVEL: 'error' };
  const stat = (values: number[]) => ({ p50: round(percentile(values, 50), 1), p95: round(percentile(values, 95), 1) });
  const result = {
    size,
    runs,
    machine: { cores: availableParallelism(), loadAverage: loadavg().map((n) => round(n, 2)) },
    nodeMs: stat(wallTimes(['-e', '0'], runs, env)),
    versionMs: stat(wallTimes([SM, '--version'], runs, env)),
    searchMs: stat(wallTimes([SM, 'search', 'what did Caroline say about the trip'], runs, env)),
  };
  rmSync(dir, { recursive: true, force: true });
  return { ...result, met: { version: result.versionMs.p50 <= TARGETS.versionMs, search: result.searchMs.p50 <= TARGETS.searchMs } };
}

async function main() {
  const { values } = parseArgs({ options: { json: { type: 'boolean', default: false }, size: { type: 'string', default: '1000' }, runs: { type: 'string', default: '15' } } });
  const size = Number(values.size);
  const runs = Number(values.runs);
  if (!Number.isInteger(size) || size < 1 || !Number.isInteger(runs) || runs < 3) {
    process.stderr.write('usage: npm run bench:cli -- [--json] [--size 1000] [--runs 15]\n');
    process.exit(2);
  }
  const result = benchCli(size, runs);
  if (values.json) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  const row = (name: string, s: { p50: number; p95: number }, target?: number, met?: boolean) =>
    `${name.padEnd(30)}${`${s.p50} / ${s.p95}`.padEnd(18)}${target ? `<= ${target} ms: ${met ? 'met' : 'MISSED'}` : ''}`;
  process.stdout.write(
    [
      `${size} turns + facts, ${runs} runs each; ${result.machine.cores} cores, load average ${result.machine.loadAverage.join(' ')}`,
      `${'command (wall time)'.padEnd(30)}${'p50 / p95 ms'.padEnd(18)}target (p50)`,
      row('node -e 0', result.nodeMs),
      row('sm --version', result.versionMs, TARGETS.versionMs, result.met.version),
      row('sm search (embedded)', result.searchMs, TARGETS.searchMs, result.met.search),
    ].join('\n') + '\n',
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await runMain(main);
