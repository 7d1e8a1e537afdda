// NER benchmark over LoCoMo conversations: what the fast strategy (regex + known names) costs
// per turn, what the accurate one (adds compromise; no LLM here) costs, and addTurn's latency
// with fast NER on and off. Turns go in through ingestTurn (heuristic extraction, speaker
// names); the accurate-NER jobs are drained after every session, as a worker would, so the
// known-names index grows the way it does in use.
//   npm run bench:ner -- [--json] FILE...
import { DEFAULT_SPACE } from '../server/core/kernel/space.ts';
import { runMain } from './run-main.ts';
import { parseArgs } from 'node:util';
import { loadCompromise } from '../server/core/entities/ner/compromise-provider.ts';
import {
  accurateProviders,
  extractEntities,
  extractSync,
  fastProviders,
} from '../server/core/entities/ner/pipeline.ts';
import { closeStore, openStore } from '../server/storage/sqlite/open.ts';
import { ingestTurn } from '../server/services/ingest.ts';
import { jobHandlers } from '../server/services/job-handlers.ts';
import { drainJobs } from '../server/jobs/worker.ts';
import { createRuntime } from '../server/services/runtime.ts';
import { loadLocomo, type LocomoConversation } from './locomo-data.ts';
import { percentile, round } from './stats.ts';

const stats = (ms: number[]) => ({
  p50: round(percentile(ms, 50)),
  p99: round(percentile(ms, 99)),
  mean: round(ms.reduce((a, b) => a + b, 0) / Math.max(1, ms.length)),
});

/**
 * Ingests the conversation into two stores in lockstep, NER off and on, alternating which goes
 * first: both see the same heap and the same machine load, so the difference is NER's own cost.
 * The NER store's accurate jobs are drained after each session (untimed), as a worker would.
 */
async function ingest(conversation: LocomoConversation) {
  const open = async (ner: boolean) => {
    const store = await openStore({
      path: ':memory:',
      env: {},
      config: { extractor: { mode: 'heuristic' }, ner: { enabled: ner } },
    });
    return { store, runtime: await createRuntime(store, {}), addTurn: [] as number[] };
  };
  const off = await open(false);
  const on = await open(true);
  const job: number[] = [];
  let hotLinks = 0;
  let i = 0;
  for (const session of conversation.sessions) {
    for (const turn of session.turns) {
      for (const side of i++ % 2 ? [on, off] : [off, on]) {
        side.store.clock = { now: () => turn.at };
        const t0 = performance.now();
        const result = await ingestTurn(side.runtime, DEFAULT_SPACE, {
          sessionId: `${conversation.name}:${session.index}`,
          role: 'user',
          name: turn.speaker,
          text: turn.text,
          at: turn.at,
        });
        side.addTurn.push(performance.now() - t0);
        if (side === on)
          hotLinks += (await on.store.sql.get<{ n: number }>('select count(*) n from turn_entities where turn_id = ?', [
            result.turn.id,
          ]))!.n;
      }
    }
    const t0 = performance.now();
    const report = await drainJobs(on.store, jobHandlers(on.runtime));
    if (report.ran > 0) job.push((performance.now() - t0) / report.ran);
  }
  await closeStore(off.store);
  return { store: on.store, addTurnOff: off.addTurn, addTurnOn: on.addTurn, job, hotLinks };
}

export async function benchNer(conversation: LocomoConversation) {
  const texts = conversation.sessions.flatMap((s) => s.turns.map((t) => t.text));
  const on = await ingest(conversation);
  const { store } = on;

  // Strategy costs on every turn, with the registry as the conversation left it.
  const fast = await fastProviders(store, DEFAULT_SPACE);
  const accurate = await accurateProviders(store, DEFAULT_SPACE);
  const fastMs: number[] = [];
  const accurateMs: number[] = [];
  let fastFound = 0;
  let accurateFound = 0;
  for (const text of texts) {
    let t0 = performance.now();
    fastFound += extractSync(text, fast).length;
    fastMs.push(performance.now() - t0);
    t0 = performance.now();
    accurateFound += (await extractEntities(text, accurate)).entities.length;
    accurateMs.push(performance.now() - t0);
  }
  const byType = await store.sql.all<{ type: string; n: number }>(
    'select type, count(*) n from entities group by type order by n desc',
  );
  const links = (await store.sql.get<{ n: number }>('select count(*) n from turn_entities'))!.n;
  await closeStore(store);
  return {
    file: conversation.name,
    turns: texts.length,
    entities: Object.fromEntries(byType.map((r) => [r.type, r.n])),
    turnLinks: links,
    /** Links made inside addTurn (speaker + regex + known names) before any accurate job. */
    hotPathLinks: on.hotLinks,
    fastPerTurnMs: stats(fastMs),
    accuratePerTurnMs: stats(accurateMs),
    entitiesPerTurn: { fast: round(fastFound / texts.length), accurate: round(accurateFound / texts.length) },
    addTurnMs: { nerOff: stats(on.addTurnOff), nerOn: stats(on.addTurnOn) },
    accurateJobMs: stats(on.job),
  };
}

async function main() {
  const { values, positionals } = parseArgs({
    options: { json: { type: 'boolean', default: false } },
    allowPositionals: true,
  });
  if (positionals.length === 0) {
    process.stderr.write('usage: npm run bench:ner -- [--json] FILE...\n');
    process.exit(2);
  }
  await loadCompromise(); // its one-off import is not a per-turn cost
  const conversations = positionals.flatMap(loadLocomo);
  await benchNer(conversations[0]!); // warm-up: JIT and statement caches
  const results = [];
  for (const conversation of conversations) results.push(await benchNer(conversation));
  if (values.json) {
    process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
    return;
  }
  const ms = (s: { p50: number; p99: number }) => `${s.p50} / ${s.p99}`;
  const rows = results.map((r) =>
    [
      r.file,
      r.turns,
      ms(r.fastPerTurnMs),
      ms(r.accuratePerTurnMs),
      ms(r.addTurnMs.nerOff),
      ms(r.addTurnMs.nerOn),
      ms(r.accurateJobMs),
      r.hotPathLinks,
      r.turnLinks,
      JSON.stringify(r.entities),
    ].join('\t'),
  );
  process.stdout.write(
    `${[
      'file\tturns\tfast ms p50/p99\taccurate ms p50/p99\taddTurn NER off\taddTurn NER on\taccurate job ms/turn\thot-path links\tall turn links\tentities by type',
      ...rows,
      '',
      'fast = regex + known names; accurate = fast + compromise (no LLM). addTurn = ingestTurn, heuristic extraction.',
      'accurate job: drained after each session (claim + NER + write + complete), mean per job over a session.',
    ].join('\n')}\n`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await runMain(main);
