import { runMain } from './run-main.ts';
import { parseArgs } from 'node:util';
import MiniSearch from 'minisearch';
import type { SearchOptions } from '../server/core/search/index.ts';
import { closeStore } from '../server/storage/sqlite/open.ts';
import {
  type BenchEmbedding,
  EMBEDDING_FLAGS,
  EMBEDDING_USAGE,
  embeddingOf,
  type Loaded,
  loadConversation,
  searchLoaded,
} from './loaded-conversation.ts';

import { loadBenchData } from './bench-data.ts';
import { percentile, round } from './stats.ts';

export type Retriever = { name: string; retrieve(question: string, k: number): number[] | Promise<number[]> };
export type SystemResult = {
  name: string;
  recall: Record<string, number>;
  /** The share of questions with at least one evidence turn in the top k (recall counts every evidence turn). */
  any: Record<string, number>;
  byCategory: Record<string, Record<string, number>>;
  latencyMs: { p50: number; p95: number };
};

/** The plain baseline's query: every distinct word of the question, quoted, OR-ed. */
export const plainMatch = (question: string) => {
  const words = [...new Set(question.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])];
  return words.length ? words.map((w) => `"${w}"`).join(' OR ') : null;
};

/** Plain BM25: FTS5 with the porter stemmer over "speaker: text" per turn, the question's words OR-ed. */
export function bm25Retriever(loaded: Loaded): Retriever {
  const db = loaded.store.sqlite;
  db.exec(`create virtual table if not exists bench_bm25 using fts5(text, tokenize='porter unicode61')`);
  db.exec('delete from bench_bm25');
  const insert = db.prepare('insert into bench_bm25(rowid, text) values (?, ?)');
  db.transaction(() => {
    for (const turn of loaded.turns) insert.run(turn.id, `${turn.speaker}: ${turn.text}`);
  })();
  const stmt = db.prepare('select rowid as id from bench_bm25 where bench_bm25 match ? order by rank limit ?');
  return {
    name: 'bm25',
    retrieve(question, k) {
      const match = plainMatch(question);
      return match ? (stmt.all(match, k) as { id: number }[]).map((r) => r.id) : [];
    },
  };
}

export function miniSearchRetriever(loaded: Loaded): Retriever {
  const index = new MiniSearch<{ id: number; text: string }>({ fields: ['text'] });
  index.addAll(loaded.turns);
  return {
    name: 'minisearch',
    retrieve: (question, k) =>
      index
        .search(question)
        .slice(0, k)
        .map((r) => r.id as number),
  };
}

export function symbiosisRetriever(loaded: Loaded, options: SearchOptions = {}, name = 'symbiosis'): Retriever {
  return {
    name,
    async retrieve(question, k) {
      const { hits } = await searchLoaded(
        loaded,
        { query: question, kinds: ['turn'], limit: Math.min(200, k * 3) },
        options,
      );
      const out: number[] = [];
      for (const hit of hits)
        for (const id of hit.kind === 'turn' ? [hit.id] : hit.sourceTurnIds) if (!out.includes(id)) out.push(id);
      return out.slice(0, k);
    },
  };
}

type Tally = {
  sums: Map<string, Map<number, number>>;
  hits: Map<number, number>;
  counts: Map<string, number>;
  latencies: number[];
};
const newTally = (): Tally => ({ sums: new Map(), hits: new Map(), counts: new Map(), latencies: [] });

export async function evaluate(loaded: Loaded, retriever: Retriever, ks: number[], tallies: Tally[]) {
  const maxK = Math.max(...ks);
  for (const q of loaded.questions) {
    const t0 = performance.now();
    const got = await retriever.retrieve(q.text, maxK);
    const ms = performance.now() - t0;
    for (const tally of tallies) {
      tally.latencies.push(ms);
      for (const group of ['all', q.category]) {
        tally.counts.set(group, (tally.counts.get(group) ?? 0) + 1);
        const byK = tally.sums.get(group) ?? new Map<number, number>();
        for (const k of ks) {
          const top = new Set(got.slice(0, k));
          const found = q.evidence.filter((id) => top.has(id)).length;
          byK.set(k, (byK.get(k) ?? 0) + found / q.evidence.length);
          if (group === 'all' && found > 0) tally.hits.set(k, (tally.hits.get(k) ?? 0) + 1);
        }
        tally.sums.set(group, byK);
      }
    }
  }
}

function summarise(name: string, tally: Tally, ks: number[]): SystemResult {
  const recallOf = (group: string) =>
    Object.fromEntries(
      ks.map((k) => [
        String(k),
        round((tally.sums.get(group)?.get(k) ?? 0) / Math.max(1, tally.counts.get(group) ?? 0)),
      ]),
    );
  const categories = [...tally.counts.keys()].filter((g) => g !== 'all').sort();
  return {
    name,
    recall: recallOf('all'),
    any: Object.fromEntries(
      ks.map((k) => [String(k), round((tally.hits.get(k) ?? 0) / Math.max(1, tally.counts.get('all') ?? 0))]),
    ),
    byCategory: Object.fromEntries(categories.map((c) => [c, recallOf(c)])),
    latencyMs: { p50: round(percentile(tally.latencies, 50), 2), p95: round(percentile(tally.latencies, 95), 2) },
  };
}

/** Ranker features set to 0. */
const without = (...features: string[]): SearchOptions => ({
  tuning: { turns: { weights: Object.fromEntries(features.map((f) => [f, 0])) } },
});

/**
 * Feature switches for the ablation: each run turns one group off. Facts have no row: they reach
 * turns as a ranker feature and an RRF list whose weights were both fitted to 0 on LoCoMo.
 */
export const ABLATIONS: Record<string, SearchOptions> = {
  'no-neighbours': without('prev', 'next', 'prev2', 'next2', 'windowCoverage'),
  'no-coverage': without('coverage', 'windowCoverage', 'bigram'),
  'no-speaker': without('speaker', 'otherSpeaker'),
  'no-time': without('timeWords', 'onDate', 'opener', 'talksOfDate', 'dated'),
  'no-answer-type': without('number', 'name', 'question'),
  'no-entity': { tuning: { turns: { weights: { entity: 0 } }, weights: { entity: 0 } } },
};

/** What a data set's part of a run was: questions asked, questions without evidence (not asked) by category, turns refused. */
export type DatasetResult = {
  conversations: number;
  questions: number;
  unasked: Record<string, number>;
  refused: number;
  systems: SystemResult[];
};

export async function runBenchmark(
  paths: string[],
  ks: number[],
  ablation = false,
  crowd = 0,
  embedding?: BenchEmbedding,
) {
  // Crowded files hold other turns: the baselines (over every turn of the file) do not apply.
  const makers: { name: string; make: (l: Loaded) => Retriever }[] = [
    {
      name: crowd > 0 ? `symbiosis, beside ${crowd} turns of another user` : 'symbiosis',
      make: (l) => symbiosisRetriever(l),
    },
    ...(crowd > 0
      ? []
      : [
          { name: 'bm25', make: bm25Retriever },
          { name: 'minisearch', make: miniSearchRetriever },
        ]),
  ];
  if (ablation)
    for (const [name, options] of Object.entries(ABLATIONS))
      makers.push({ name: `symbiosis ${name}`, make: (l) => symbiosisRetriever(l, options, `symbiosis ${name}`) });
  const pooled = new Map(makers.map((m) => [m.name, newTally()]));
  const datasets = new Map<
    string,
    {
      conversations: number;
      questions: number;
      unasked: Record<string, number>;
      refused: number;
      tallies: Map<string, Tally>;
    }
  >();
  let questions = 0;
  for (const conversation of paths.flatMap(loadBenchData)) {
    const loaded = await loadConversation(conversation, crowd, embedding);
    const part = datasets.get(loaded.dataset) ?? {
      conversations: 0,
      questions: 0,
      unasked: {},
      refused: 0,
      tallies: new Map(makers.map((m) => [m.name, newTally()])),
    };
    datasets.set(loaded.dataset, part);
    part.conversations++;
    part.questions += loaded.questions.length;
    part.refused += loaded.refused;
    for (const [category, n] of Object.entries(loaded.unasked))
      part.unasked[category] = (part.unasked[category] ?? 0) + n;
    questions += loaded.questions.length;
    for (const maker of makers)
      await evaluate(loaded, maker.make(loaded), ks, [pooled.get(maker.name)!, part.tallies.get(maker.name)!]);
    await closeStore(loaded.store);
  }
  const systemsOf = (tallies: Map<string, Tally>) => makers.map((m) => summarise(m.name, tallies.get(m.name)!, ks));
  return {
    questions,
    systems: systemsOf(pooled),
    datasets: Object.fromEntries(
      [...datasets].map(([name, { tallies, ...rest }]) => [
        name,
        { ...rest, systems: systemsOf(tallies) } satisfies DatasetResult,
      ]),
    ),
  };
}

/** A text table, columns padded. */
export function textTable(head: string[], rows: unknown[][]): string[] {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells: unknown[]) => cells.map((c, i) => String(c).padEnd(widths[i]!)).join('  ');
  return [line(head), ...rows.map(line)];
}

/** LoCoMo's categories are numbers: "cat1"; BEAM's abilities are names. */
export const categoryLabel = (category: string) => (/^\d+$/.test(category) ? `cat${category}` : category);

function report(name: string, part: DatasetResult, ks: number[]): string[] {
  const kc = String(ks.includes(10) ? 10 : ks[0]);
  const unasked = Object.entries(part.unasked)
    .map(([c, n]) => `${categoryLabel(c)} ${n}`)
    .join(', ');
  const out = [
    `## ${name}: ${part.questions} questions from ${part.conversations} conversation(s)${unasked ? `; not asked, no evidence turn: ${unasked}` : ''}${part.refused ? `; turns refused by the store: ${part.refused}` : ''}`,
  ];
  const head = ['system', ...ks.map((k) => `R@${k}`), `any@${kc}`, 'p50 ms', 'p95 ms'];
  out.push(
    ...textTable(
      head,
      part.systems.map((s) => [
        s.name,
        ...ks.map((k) => s.recall[String(k)]),
        s.any[kc],
        s.latencyMs.p50,
        s.latencyMs.p95,
      ]),
    ),
  );
  // Per category: each system's R@k side by side, then ours minus plain BM25 at the middle k.
  const categories = [...new Set(part.systems.flatMap((s) => Object.keys(s.byCategory)))].sort();
  const ours = part.systems[0]!;
  const bm25 = part.systems.find((s) => s.name === 'bm25');
  const catHead = [
    'category',
    ...part.systems.filter((s) => !s.name.startsWith('symbiosis ')).flatMap((s) => ks.map((k) => `${s.name} R@${k}`)),
    ...(bm25 ? [`margin R@${kc}`] : []),
  ];
  const catRows = categories.map((c) => [
    categoryLabel(c),
    ...part.systems
      .filter((s) => !s.name.startsWith('symbiosis '))
      .flatMap((s) => ks.map((k) => s.byCategory[c]?.[String(k)] ?? '')),
    ...(bm25 ? [round((ours.byCategory[c]?.[kc] ?? 0) - (bm25.byCategory[c]?.[kc] ?? 0))] : []),
  ]);
  out.push('', ...textTable(catHead, catRows));
  return out;
}

async function main() {
  const { values, positionals } = parseArgs({
    options: {
      json: { type: 'boolean', default: false },
      k: { type: 'string', default: '5,10,20' },
      ablation: { type: 'boolean', default: false },
      crowd: { type: 'string', default: '0' },
      ...EMBEDDING_FLAGS,
    },
    allowPositionals: true,
  });
  const ks = values.k.split(',').map(Number);
  const crowd = Number(values.crowd);
  const usage = (problem: string) => {
    process.stderr.write(
      `${problem}\nusage: npm run bench:locomo -- [--json] [--k 5,10,20] [--ablation] [--crowd TURNS] ${EMBEDDING_USAGE} FILE|FOLDER...\n`,
    );
    process.exit(2);
  };
  if (positionals.length === 0) usage('no LoCoMo file or BEAM folder given');
  if (ks.some((k) => !Number.isInteger(k) || k < 1)) usage('--k: positive integers, comma-separated');
  if (!Number.isInteger(crowd) || crowd < 0) usage('--crowd: a whole number of turns');
  const { embedding, problem } = embeddingOf(values);
  if (problem) return usage(problem);
  const result = await runBenchmark(positionals, ks, values.ablation, crowd, embedding);
  if (values.json) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  const out = [`${result.questions} questions from ${positionals.length} path(s)`];
  for (const [name, part] of Object.entries(result.datasets)) out.push('', ...report(name, part, ks));
  process.stdout.write(`${out.join('\n')}\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) await runMain(main);
