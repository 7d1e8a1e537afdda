// The performance targets in one run (`npm run bench:perf`): vector KNN and search with vectors at
// scale (vectors.ts: one user holding every row, and many users), then `sm serve` over HTTP
// (load.ts: search with read workers off and on at 1, 4 and 16 clients, 500 turns/s sustained,
// backlog and lag, memory idle and under load, acknowledged turns checked in the file). It prints
// the machine's core count, every target with its figure, met or missed, and then each part's own
// tables. A target this machine cannot show (reads across 4+ cores on fewer) says so, with the
// ratio it has; it never counts as met.
//   npm run bench:perf -- [--json] [--size 100000] [--dimensions 256] [--samples 300] [--users 1,1000] [--load-size 10000] [--rate 500] [--writers 16] [--seconds 20] [--clients 1,4,16] [--phase-seconds 8] [--idle-seconds 20]
import { availableParallelism, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { benchLoad, formatLoad } from './load.ts';
import { mainThreadCeiling, type ReadRow } from './load-reads.ts';
import { runMain } from './run-main.ts';
import { round } from './stats.ts';
import { benchVectors, formatVectors, targetsOf as vectorTargets, type VectorResult } from './vectors.ts';

type Load = Awaited<ReturnType<typeof benchLoad>>;
type Verdict = 'met' | 'MISSED' | 'needs 4+ cores';
export type Target = { point: number; target: string; figure: string; verdict: Verdict };

/** Point 2's ceiling from the main thread's CPU per worker-answered search (load-reads.ts), or nothing. */
function ceilingOf(off: ReadRow, on: ReadRow): string {
  const ceiling = mainThreadCeiling(off, on);
  return ceiling
    ? `; the main thread spends ${on.mainCpuMsPerSearch} ms of CPU per search the workers answer, so at most ${ceiling.requestsPerSecond} requests/s with cores to spare (${ceiling.ratio}x)`
    : '';
}

/** The targets. Memory: idle <= 100 MB, peak <= 200 MB; writes: the rate offered, acknowledged, nothing lost. */
export function targetsOf(vectors: VectorResult[], load: Load, cores: number): Target[] {
  const out: Target[] = vectorTargets(vectors).map((t) => ({
    point: 1,
    target: t.result,
    figure: t.target,
    verdict: t.met ? 'met' : 'MISSED',
  }));
  const [off, on] = load.reads;
  const most = Math.max(...off!.rows.map((r) => r.clients));
  const one = off!.rows.find((r) => r.clients === most)!;
  const many = on!.rows.find((r) => r.clients === most)!;
  const ratio = one.requestsPerSecond > 0 ? round(many.requestsPerSecond / one.requestsPerSecond, 2) : 0;
  out.push({
    point: 2,
    target: `HTTP search at ${most} clients, ${on!.workers} read worker${on!.workers === 1 ? '' : 's'} against the main thread alone: >= 3x at 4+ cores`,
    figure: `${one.requestsPerSecond} -> ${many.requestsPerSecond} requests/s (${ratio}x; p95 ${one.latencyMs.p95} -> ${many.latencyMs.p95} ms) on ${cores} cores${ceilingOf(one, many)}`,
    verdict: cores < 4 ? 'needs 4+ cores' : ratio >= 3 ? 'met' : 'MISSED',
  });
  const s = load.sustained!;
  out.push({
    point: 3,
    target: `${s.offeredPerSecond} turns/s offered by ${s.writers} clients: acknowledged (>= 99%), the backlog drained`,
    figure: `${s.turnsPerSecond} turns/s acknowledged, peak backlog ${s.peakBacklog}, lag at the end ${s.lagAtEndSeconds} s, drained ${s.drainSeconds ?? 'not'} s after, ${s.refused} answered 503`,
    verdict: s.turnsPerSecond >= 0.99 * s.offeredPerSecond && s.drainSeconds !== null ? 'met' : 'MISSED',
  });
  const memory = load.memoryMB!;
  out.push({
    point: 4,
    target: 'RSS idle <= 100 MB',
    figure: `${memory.idle ?? '–'} MB`,
    verdict: memory.idle !== null && memory.idle <= 100 ? 'met' : 'MISSED',
  });
  out.push({
    point: 4,
    target: `RSS under the load (peak, VmHWM) <= 200 MB`,
    figure: `${memory.peak ?? '–'} MB`,
    verdict: memory.peak !== null && memory.peak <= 200 ? 'met' : 'MISSED',
  });
  const acked = load.acknowledged!;
  out.push({
    point: 0,
    target: 'no acknowledged turn lost',
    figure: `${acked.turns} acknowledged, ${acked.inFile} in the file`,
    verdict: acked.lost === 0 ? 'met' : 'MISSED',
  });
  return out;
}

const USAGE =
  'usage: npm run bench:perf -- [--json] [--size 100000] [--dimensions 256] [--samples 300] [--users 1,1000] [--load-size 10000] [--rate 500] [--writers 16] [--seconds 20] [--clients 1,4,16] [--phase-seconds 8] [--idle-seconds 20]';

/** Exits 2 with the usage after a message naming the flag. */
function refuse(message: string): never {
  process.stderr.write(`${message}\n${USAGE}\n`);
  process.exit(2);
}

/** The flags, checked: a bad one exits 2 naming it. */
function options() {
  const { values } = parseArgs({
    options: {
      json: { type: 'boolean', default: false },
      size: { type: 'string', default: '100000' },
      dimensions: { type: 'string', default: '256' },
      samples: { type: 'string', default: '300' },
      users: { type: 'string', default: '1,1000' },
      'load-size': { type: 'string', default: '10000' },
      rate: { type: 'string', default: '500' },
      writers: { type: 'string', default: '16' },
      seconds: { type: 'string', default: '20' },
      clients: { type: 'string', default: '1,4,16' },
      'phase-seconds': { type: 'string', default: '8' },
      'idle-seconds': { type: 'string', default: '20' },
    },
  });
  const n = (flag: keyof typeof values, min: number) => {
    const value = Number(values[flag]);
    if (!Number.isInteger(value) || value < min) refuse(`--${flag}: a whole number from ${min}`);
    return value;
  };
  const list = (flag: 'users' | 'clients') => {
    const numbers = String(values[flag]).split(',').map(Number);
    if (numbers.some((x) => !Number.isInteger(x) || x < 1)) refuse(`--${flag}: whole numbers from 1, comma-separated`);
    return numbers;
  };
  const size = n('size', 100);
  const dimensions = n('dimensions', 1);
  const samples = n('samples', 10);
  const users = list('users');
  if (users.some((u) => u > size)) refuse(`--users: at most --size (${size})`);
  const load = {
    size: n('load-size', 16),
    rate: n('rate', 1),
    writers: n('writers', 1),
    seconds: n('seconds', 1),
    clients: list('clients'),
    phaseSeconds: n('phase-seconds', 1),
    idleSeconds: n('idle-seconds', 0),
  };
  return { json: values.json, size, dimensions, samples, users, load };
}

type Machine = { cores: number; loadAverageAtStart: number[]; loadAverage: number[] };
type Run = { machine: Machine; targets: Target[]; vectors: VectorResult[]; load: Load };

/** The targets' table, then each part's own tables (the vectors' with the load average after them). */
function report({ machine, targets, vectors, load }: Run, afterVectors: number[], samples: number): string {
  const lines = [
    `Performance targets in one run: ${machine.cores} cores, load average ${machine.loadAverageAtStart.join(' ')} at the start, ${machine.loadAverage.join(' ')} at the end`,
    '',
    '| point | target | figure | verdict |',
    '| --- | --- | --- | --- |',
    ...targets.map((t) => `| ${t.point || '–'} | ${t.target} | ${t.figure} | ${t.verdict} |`),
    '',
    '## Vectors at scale',
    '',
    ...formatVectors(
      vectors,
      { cores: machine.cores, loadAverageAtStart: machine.loadAverageAtStart, loadAverage: afterVectors },
      samples,
    ),
    '',
    '## sm serve over HTTP',
    '',
    formatLoad(load),
  ];
  return `${lines.join('\n')}\n`;
}

async function main() {
  const { json, size, dimensions, samples, users, load: loadOptions } = options();
  const loadAtStart = loadavg().map((x) => round(x, 2));
  const vectors: VectorResult[] = [];
  for (const u of users) vectors.push(await benchVectors(size, dimensions, samples, u));
  const afterVectors = loadavg().map((x) => round(x, 2));
  // At least one read worker, whatever the cores: the comparison is what point 2 asks about.
  const load = await benchLoad({ ...loadOptions, readWorkers: Math.max(1, Math.min(4, availableParallelism() - 1)) });
  const machine = {
    cores: availableParallelism(),
    loadAverageAtStart: loadAtStart,
    loadAverage: loadavg().map((x) => round(x, 2)),
  };
  const targets = targetsOf(vectors, load, machine.cores);
  if (json) {
    process.stdout.write(`${JSON.stringify({ machine, targets, vectors, load })}\n`);
    return;
  }
  process.stdout.write(report({ machine, targets, vectors, load }, afterVectors, samples));
}

if (import.meta.url === `file://${process.argv[1]}`) await runMain(main);
