// CLI start-up as a person feels it: wall time of `sm --version` and of an embedded `sm search`
// on a database of N synthetic turns + facts, each a fresh process, beside a bare `node -e 0`
// in the same run (the floor no command can go under). Targets: --version <= 150 ms, search
// <= 300 ms (p50). Without targets, for comparison: `sm get-context` (a direct read too, which
// also loads the o200k tokenizer) and `sm list` (still run on the GraphQL schema embedded).
// --baseline DIR adds another checkout's `sm --version` and `sm search` (its bin/sm.js, with its
// dist/cli built) to the same rounds, for a same-run ratio of ours to its.
//   npm run bench:cli -- [--json] [--size 1000] [--runs 15] [--baseline ../other-checkout]
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { closeStore, openStore } from '../server/storage/sqlite/open.ts';
import { runMain } from './run-main.ts';
import { build } from './scale-store.ts';
import { rng } from './synthetic.ts';
import { percentile, round } from './stats.ts';

const SM = fileURLToPath(new URL('../bin/sm.js', import.meta.url));
export const TARGETS = { versionMs: 150, searchMs: 300 } as const;

/**
 * Wall times of each command over `runs` rounds, the commands taking turns within a round: a
 * burst of load from elsewhere falls on all of them alike, so their figures compare. The first
 * round warms the OS file cache and is not counted.
 */
function wallTimes(commands: string[][], runs: number, env: NodeJS.ProcessEnv): number[][] {
  const times = commands.map((): number[] => []);
  for (let round = 0; round < runs + 1; round++) {
    commands.forEach((args, i) => {
      const t0 = performance.now();
      execFileSync(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
      if (round > 0) times[i]!.push(performance.now() - t0);
    });
  }
  return times;
}

export async function benchCli(size: number, runs: number, baseline?: string) {
  const dir = mkdtempSync(join(tmpdir(), 'sm-bench-cli-'));
  const path = join(dir, 'cli.db');
  const store = await openStore({ path, env: {} });
  build(store, size, rng(5));
  await closeStore(store);
  const env = { ...process.env, SM_DB: path, SM_LOG_LEVEL: 'error' };
  const stat = (values: number[]) => ({ p50: round(percentile(values, 50), 1), p95: round(percentile(values, 95), 1) });
  const query = 'what did Caroline say about the trip';
  const baseSm = baseline && join(baseline, 'bin', 'sm.js');
  const [node, version, search, context, list, baseVersion, baseSearch] = wallTimes(
    [
      ['-e', '0'],
      [SM, '--version'],
      [SM, 'search', query],
      [SM, 'get-context', '--session', 's0', '--query', query],
      [SM, 'list', '--limit', '10'],
      ...(baseSm
        ? [
            [baseSm, '--version'],
            [baseSm, 'search', query],
          ]
        : []),
    ],
    runs,
    env,
  ).map(stat);
  const ratio = (ours: { p50: number }, theirs: { p50: number }) => round(ours.p50 / theirs.p50, 3);
  const result = {
    size,
    runs,
    machine: { cores: availableParallelism(), loadAverage: loadavg().map((n) => round(n, 2)) },
    nodeMs: node!,
    versionMs: version!,
    searchMs: search!,
    contextMs: context!,
    listMs: list!,
    baseline:
      baseline && baseVersion && baseSearch
        ? {
            path: baseline,
            versionMs: baseVersion,
            searchMs: baseSearch,
            versionRatio: ratio(version!, baseVersion),
            searchRatio: ratio(search!, baseSearch),
          }
        : null,
  };
  rmSync(dir, { recursive: true, force: true });
  return {
    ...result,
    met: { version: result.versionMs.p50 <= TARGETS.versionMs, search: result.searchMs.p50 <= TARGETS.searchMs },
  };
}

async function main() {
  const { values } = parseArgs({
    options: {
      json: { type: 'boolean', default: false },
      size: { type: 'string', default: '1000' },
      runs: { type: 'string', default: '15' },
      baseline: { type: 'string' },
    },
  });
  const size = Number(values.size);
  const runs = Number(values.runs);
  if (!Number.isInteger(size) || size < 1 || !Number.isInteger(runs) || runs < 3) {
    process.stderr.write('usage: npm run bench:cli -- [--json] [--size 1000] [--runs 15] [--baseline DIR]\n');
    process.exit(2);
  }
  if (values.baseline && !existsSync(join(values.baseline, 'bin', 'sm.js'))) {
    process.stderr.write(`--baseline: ${values.baseline} has no bin/sm.js (a checkout, with its dist/cli built)\n`);
    process.exit(2);
  }
  const result = await benchCli(size, runs, values.baseline);
  if (values.json) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  const row = (name: string, s: { p50: number; p95: number }, target?: number, met?: boolean) =>
    `${name.padEnd(30)}${`${s.p50} / ${s.p95}`.padEnd(18)}${target ? `<= ${target} ms: ${met ? 'met' : 'MISSED'}` : ''}`;
  process.stdout.write(
    `${[
      `${size} turns + facts, ${runs} runs each; ${result.machine.cores} cores, load average ${result.machine.loadAverage.join(' ')}`,
      `${'command (wall time)'.padEnd(30)}${'p50 / p95 ms'.padEnd(18)}target (p50)`,
      row('node -e 0', result.nodeMs),
      row('sm --version', result.versionMs, TARGETS.versionMs, result.met.version),
      row('sm search (embedded)', result.searchMs, TARGETS.searchMs, result.met.search),
      row('sm get-context (embedded)', result.contextMs),
      row('sm list (embedded, GraphQL)', result.listMs),
      ...(result.baseline
        ? [
            row('baseline sm --version', result.baseline.versionMs),
            row('baseline sm search', result.baseline.searchMs),
            `ours / baseline (p50): --version ${result.baseline.versionRatio}x, search ${result.baseline.searchRatio}x`,
          ]
        : []),
    ].join('\n')}\n`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await runMain(main);
