// Extraction benchmark over LoCoMo conversations: every turn goes in through the same path users
// use (ingestTurn, heuristic mode, speaker names), then the dataset's per-turn observations are
// compared with the memories linked to the same turn.
//   npm run bench:extract -- [--json] FILE...
import { DEFAULT_SPACE } from '../server/core/space.ts';
import { runMain } from './run-main.ts';
import { parseArgs } from 'node:util';
import { memorySources } from '../drizzle/schema.ts';
import { closeStore, openStore } from '../server/db/open.ts';
import { ingestTurn } from '../server/services/ingest.ts';
import { createRuntime } from '../server/services/runtime.ts';
import { normalizeText } from '../server/core/text.ts';
import { loadLocomo, type LocomoConversation } from './locomo-data.ts';
import { percentile, round } from './stats.ts';

const STOPWORDS = new Set(
  'a an the and or but of to in on at for with from by about as is are was were be been being it its this that these those he she they them their her his him i me my we our you your who which what when where how has have had do does did so very also just really not no than then there here into over after before up out some any all can could would should will may might one'.split(' '),
);

/** Content words, lightly stemmed, so "stories" meets "story" and "attended" meets "attend". */
export function contentTokens(text: string): Set<string> {
  const words = normalizeText(text).split(' ').filter((w) => w && !STOPWORDS.has(w));
  return new Set(words.map((w) => w.replace(/(?:ies|es|s|ed|ing)$/, (m) => (m === 'ies' ? 'y' : '')) || w));
}

const recall = (observation: Set<string>, memory: Set<string>) => {
  if (observation.size === 0) return 0;
  let shared = 0;
  for (const token of observation) if (memory.has(token)) shared++;
  return shared / observation.size;
};

export async function benchExtract(conversation: LocomoConversation) {
  const store = await openStore({ path: ':memory:', env: {}, config: { extractor: { mode: 'heuristic' } } });
  const runtime = await createRuntime(store, {});
  const turnIds = new Map<string, number>();
  const latencies: number[] = [];
  const started = performance.now();
  for (const session of conversation.sessions) {
    for (const turn of session.turns) {
      let clock = turn.at;
      store.clock = { now: () => clock };
      const t0 = performance.now();
      const result = await ingestTurn(runtime, DEFAULT_SPACE, { sessionId: `${conversation.name}:${session.index}`, role: 'user', name: turn.speaker, text: turn.text, at: turn.at });
      latencies.push(performance.now() - t0);
      clock += 1;
      turnIds.set(turn.diaId, result.turn.id);
    }
  }
  const seconds = (performance.now() - started) / 1000;

  const links = await store.db.select().from(memorySources).all();
  const rows = await store.sql.all<{ id: number; content: string }>('select id, content from memories');
  const memoryTokens = new Map(rows.map((m) => [m.id, contentTokens(m.content)]));
  let covered = 0;
  const matched = new Set<number>();
  for (const observation of conversation.observations) {
    const tokens = contentTokens(observation.text);
    const turns = observation.diaIds.map((id) => turnIds.get(id)).filter((id): id is number => id !== undefined);
    let hit = false;
    for (const link of links) {
      if (!turns.includes(link.turnId)) continue;
      if (recall(tokens, memoryTokens.get(link.memoryId)!) >= 0.5) {
        hit = true;
        matched.add(link.memoryId);
      }
    }
    if (hit) covered++;
  }
  const extractedIds = new Set(links.map((l) => l.memoryId));
  await closeStore(store);
  return {
    file: conversation.name,
    turns: turnIds.size,
    observations: conversation.observations.length,
    memories: extractedIds.size,
    coverage: covered / conversation.observations.length,
    precisionProxy: extractedIds.size ? [...extractedIds].filter((id) => matched.has(id)).length / extractedIds.size : 0,
    turnsPerSecond: turnIds.size / seconds,
    addTurnMs: { p50: percentile(latencies, 50), p99: percentile(latencies, 99) },
  };
}

async function main() {
  const { values, positionals } = parseArgs({ options: { json: { type: 'boolean', default: false } }, allowPositionals: true });
  if (positionals.length === 0) {
    process.stderr.write('usage: npm run bench:extract -- [--json] FILE...\n');
    process.exit(2);
  }
  const results: Awaited<ReturnType<typeof benchExtract>>[] = [];
  for (const conversation of positionals.flatMap(loadLocomo)) results.push(await benchExtract(conversation));
  const sum = (key: 'turns' | 'observations' | 'memories') => results.reduce((n, r) => n + r[key], 0);
  const overall = {
    turns: sum('turns'),
    observations: sum('observations'),
    memories: sum('memories'),
    coverage: results.reduce((n, r) => n + r.coverage * r.observations, 0) / sum('observations'),
    precisionProxy: results.reduce((n, r) => n + r.precisionProxy * r.memories, 0) / Math.max(1, sum('memories')),
  };
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ files: results, overall }, null, 2)}\n`);
    return;
  }
  const rows = results.map((r) =>
    [r.file, r.turns, r.observations, r.memories, round(r.coverage), round(r.precisionProxy), Math.round(r.turnsPerSecond), round(r.addTurnMs.p50), round(r.addTurnMs.p99)].join('\t'),
  );
  process.stdout.write(
    [
      'file\tturns\tobservations\tmemories\tcoverage\tprecision~\tturns/s\taddTurn p50 ms\tp99 ms',
      ...rows,
      `overall\t${overall.turns}\t${overall.observations}\t${overall.memories}\t${round(overall.coverage)}\t${round(overall.precisionProxy)}`,
      '',
      'coverage: observations with a memory linked to their turn that holds >= 50% of their content words;',
      'precision~: memories that match some observation of their source turn (a proxy: observations are not exhaustive).',
    ].join('\n') + '\n',
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await runMain(main);
