// The sustained-writes phase of bench:load (load.ts): W clients adding turns at a fixed total
// rate (open loop), the backlog, lag and memory sampled each second, then the drain.
import { ADD_TURN, call, sleep, stat, type Context } from './load-clients.ts';
import { cpuOf, memoryOf } from './load-server.ts';
import type { build } from './scale-store.ts';
import { round } from './stats.ts';

export const NAMES = ['Caroline', 'Melanie', 'John', 'Maria', 'Gina', 'Jon', 'Sam', 'Alex', 'Priya', 'Tomás'];
const PLACES = ['Lisbon', 'Paris', 'Boston', 'Kyoto', 'Berlin'];

/** Sentences with names and places in them, so the NER job has names to find. */
export function turnText(text: ReturnType<typeof build>, random: () => number) {
  const name = NAMES[Math.floor(random() * NAMES.length)]!;
  const place = PLACES[Math.floor(random() * PLACES.length)]!;
  return random() < 0.5
    ? `I met ${name} in ${place} and we talked about ${text.sentence(4, 14)}`
    : `${name} said the ${text.word()} ${text.sentence(4, 14)} was great`;
}

type Sample = {
  second: number;
  acked: number;
  refused: number;
  backlog: number;
  nerBacklog: number;
  lagSeconds: number;
  deferred: number;
  rssMB: number | null;
};

/** Seconds until the job queue and the deferred NER are empty, or null past the timeout. */
async function drain(ctx: Context, timeoutSeconds: number): Promise<number | null> {
  const start = performance.now();
  while (performance.now() - start < timeoutSeconds * 1000) {
    const now = ctx.reader.read();
    if (now.backlog === 0 && now.deferred === 0) return round((performance.now() - start) / 1000, 1);
    await sleep(250);
  }
  return null;
}

type Cpu = ReturnType<typeof cpuOf>;

/**
 * CPU per acknowledged turn, the writes and all the background work they caused (to the drain):
 * unlike throughput, it hardly moves when other work shares the machine.
 */
function cpuPerTurn(before: Cpu, after: Cpu, acked: number) {
  if (!before || !after) return null;
  return {
    main: round(((after.main - before.main) * 1000) / acked, 2),
    all: round(((after.all - before.all) * 1000) / acked, 2),
  };
}

/** W writers at `rate` turns/s in total for `seconds`, sampled every second; then the drain. */
export async function sustainedWrites(
  ctx: Context,
  {
    writers,
    rate,
    seconds,
    drainTimeoutSeconds,
  }: { writers: number; rate: number; seconds: number; drainTimeoutSeconds: number },
) {
  const samples: Sample[] = [];
  const latencies: number[] = [];
  let acked = 0;
  let refused = 0;
  let failed = 0;
  const started = performance.now();
  const end = started + seconds * 1000;
  let stopped = false;
  const sampler = (async () => {
    for (let second = 1; !stopped; second++) {
      await sleep(started + second * 1000 - performance.now());
      samples.push({ second, acked, refused, ...ctx.reader.read(), rssMB: memoryOf(ctx.server.pid)?.rssMB ?? null });
    }
  })();
  let lastAck = started;
  const cpuBefore = cpuOf(ctx.server.pid);
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      for (let k = 0; ; k++) {
        const due = started + ((k * writers + w) / rate) * 1000;
        if (due >= end) return;
        const wait = due - performance.now();
        if (wait > 0) await sleep(wait);
        const { input, userId } = ctx.nextTurn(w);
        const outcome = await call(ctx.client, ADD_TURN, { input, userId });
        refused += outcome.refused;
        if (!outcome.ok || outcome.turnId === null) {
          failed++;
          continue;
        }
        acked++;
        lastAck = performance.now();
        ctx.acked.push(outcome.turnId);
        // From when the turn was due: a server that falls behind shows as latency, not as fewer samples.
        latencies.push(lastAck - Math.min(due, lastAck - outcome.ms));
      }
    }),
  );
  const writeSeconds = (lastAck - started) / 1000;
  const atEnd = ctx.reader.read();
  // The drain: sampled on, until the queue is empty.
  const drainSeconds = await drain(ctx, drainTimeoutSeconds);
  stopped = true;
  await sampler;
  const cpuMsPerTurn = cpuPerTurn(cpuBefore, cpuOf(ctx.server.pid), acked);
  const peak = samples.reduce(
    (m, s) => ({ backlog: Math.max(m.backlog, s.backlog), lag: Math.max(m.lag, s.lagSeconds) }),
    { backlog: 0, lag: 0 },
  );
  return {
    writers,
    offeredPerSecond: rate,
    seconds,
    acked,
    refused,
    failed,
    turnsPerSecond: round(acked / writeSeconds, 1),
    /** From each turn's due time to its acknowledgement. */
    latencyMs: stat(latencies),
    backlogAtEnd: atEnd.backlog,
    lagAtEndSeconds: atEnd.lagSeconds,
    peakBacklog: peak.backlog,
    peakLagSeconds: peak.lag,
    drainSeconds,
    /** Turns whose accurate NER was deferred (cheap mode) and not caught up when the writes ended. */
    deferredAtEnd: atEnd.deferred,
    cpuMsPerTurn,
    samples,
  };
}
