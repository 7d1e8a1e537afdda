// Fits the turn ranker's weights (server/core/search/turn-ranker.ts) on LoCoMo files and BEAM chat
// folders together by listwise softmax cross-entropy (ranker-loss.ts), each data set weighing the
// same whatever its number of questions, and reports how the fit does on each conversation when
// that conversation is left out of the fitting, next to the plain BM25 baseline of the same run
// (bench:locomo's) and the margin between them. The ranker has two sets of weights, chosen by what
// it sees: questions whose scored turns include an assistant's (a user's chat with an assistant)
// take `chatWeights`, the others `weights`; each is fitted on the questions that take it.
//   npm run bench:fit -- [--json] [--write] [--cache FILE] [--embedding-endpoint URL --embedding-model NAME [--embedding-dimensions N]] FILE|FOLDER...
// --cache keeps the features of every question in FILE (made when absent, read when present):
// refits without loading the conversations again. Delete it after changing the features.
// --write writes the weights fitted on all of them to server/core/search/turn-weights.ts.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { CHAT_TURN_WEIGHTS, DEFAULT_TURN_WEIGHTS } from '../server/core/search/turn-weights.ts';
import { PASSAGE_FEATURES, TURN_FEATURES, type TurnFeature } from '../server/core/search/turn-features.ts';
import { EVENT_PLACES, EVENT_TURNS, placeEventTurns } from '../server/core/search/event-turns.ts';
import { closeStore } from '../server/storage/sqlite/open.ts';
import { loadBenchData, type BenchConversation } from './bench-data.ts';
import { bm25Retriever, categoryLabel, textTable } from './locomo.ts';
import {
  type BenchEmbedding,
  EMBEDDING_FLAGS,
  EMBEDDING_USAGE,
  embeddingOf,
  loadConversation,
  searchLoaded,
} from './loaded-conversation.ts';
import { fitSoftmax } from './ranker-loss.ts';
import { runMain } from './run-main.ts';
import { writeTurnWeights } from './turn-weights-file.ts';
import { round } from './stats.ts';

/**
 * One question: the scored turns' features (row-major), which rows are evidence, and the plain
 * BM25 baseline's recall at 5, 10 and 20 for it.
 */
type Sample = {
  file: string;
  dataset: string;
  category: string;
  rows: number;
  features: number[];
  evidence: number[];
  bm25: number[];
  /** The events the question compares, each ranked on its own and its best placed in the top ten (event-turns.ts). */
  events: Ranking[];
  /** With events only: the rows' turn ids and the evidence's. */
  ids: number[];
  evidenceIds: number[];
};
/** One ranking's candidates: their turn ids and features (row-major). */
type Ranking = { rows: number; ids: number[]; features: number[] };

const D = TURN_FEATURES.length;
const KS = [5, 10, 20] as const;

async function samples(conversation: BenchConversation, embedding?: BenchEmbedding): Promise<Sample[]> {
  const loaded = await loadConversation(conversation, 0, embedding);
  const plain = bm25Retriever(loaded);
  const out: Sample[] = [];
  for (const question of loaded.questions) {
    const features = new Map<number, number[]>();
    const eventFeatures: Map<number, number[]>[] = [];
    await searchLoaded(
      loaded,
      { query: question.text, kinds: ['turn'], limit: 1 },
      { turnFeatures: features, eventFeatures },
    );
    const ids = [...features.keys()];
    const index = new Map(ids.map((id, i) => [id, i]));
    const got = await plain.retrieve(question.text, 20);
    const bm25 = KS.map(
      (k) => question.evidence.filter((id) => got.slice(0, k).includes(id)).length / question.evidence.length,
    );
    // Evidence the candidates missed can never be ranked: -1 counts as a miss at every k.
    out.push({
      file: loaded.name,
      dataset: loaded.dataset,
      category: question.category,
      rows: ids.length,
      features: ids.flatMap((id) => features.get(id)!),
      evidence: question.evidence.map((id) => index.get(id) ?? -1),
      bm25,
      events: eventFeatures.map((map) => ({
        rows: map.size,
        ids: [...map.keys()],
        features: [...map.values()].flat(),
      })),
      ids: eventFeatures.length ? ids : [],
      evidenceIds: eventFeatures.length ? question.evidence : [],
    });
  }
  await closeStore(loaded.store);
  return out;
}

/** Each candidate's score under `weights` (ties broken by the lexical order). */
function scored(weights: Float64Array, s: Ranking): Float64Array {
  const score = new Float64Array(s.rows);
  for (let r = 0; r < s.rows; r++) {
    let x = 0;
    for (let k = 0; k < D; k++) x += weights[k]! * s.features[r * D + k]!;
    score[r] = x - r * 1e-9;
  }
  return score;
}

/** The turn ids of a ranking's best `n` under `weights`. */
function best(weights: Float64Array, r: Ranking, n: number): number[] {
  const score = scored(weights, r);
  return [...r.ids.keys()]
    .sort((a, b) => score[b]! - score[a]!)
    .slice(0, n)
    .map((i) => r.ids[i]!);
}

/** How many of the sample's evidence turns rank in the top k, the compared events' turns placed as search places them. */
function foundWithEvents(weights: Float64Array, s: Sample, k: number): number {
  const order = best(weights, s, Math.max(k, EVENT_PLACES)).map(String);
  const placed = placeEventTurns(
    order,
    s.events.map((e) => best(weights, e, EVENT_TURNS).map(String)),
  ).slice(0, k);
  return s.evidenceIds.filter((id) => placed.includes(String(id))).length;
}

/** How many of the sample's evidence turns rank in the top k. */
function found(score: Float64Array, s: Sample, k: number, weights?: Float64Array): number {
  if (weights && s.events?.length) return foundWithEvents(weights, s, k);
  let hit = 0;
  for (const e of s.evidence) {
    if (e < 0) continue;
    let above = 0;
    for (let r = 0; r < s.rows && above < k; r++) if (score[r]! > score[e]!) above++;
    if (above < k) hit++;
  }
  return hit;
}

/** Recall at 5, 10 and 20 of each sample under `weights`. */
const recalls = (weights: Float64Array, s: Sample) => {
  const score = scored(weights, s);
  return KS.map((k) => (s.evidence.length ? found(score, s, k, weights) / s.evidence.length : 0));
};

/** Mean recall at 5, 10 and 20 of the ranking `weights` give (or of the baseline, `weights` null). */
export function recall(weights: Float64Array | null, set: Sample[]): [number, number, number] {
  const sums = [0, 0, 0];
  for (const s of set) (weights ? recalls(weights, s) : s.bm25).forEach((x, j) => (sums[j]! += x));
  return sums.map((x) => x / Math.max(1, set.length)) as [number, number, number];
}

/** The share of questions with at least one evidence turn in the top 10. */
export function anyAt10(weights: Float64Array, set: Sample[]): number {
  return set.filter((s) => found(scored(weights, s), s, 10, weights) > 0).length / Math.max(1, set.length);
}

const atK = (r: number[]) => ({ '5': round(r[0]!), '10': round(r[1]!), '20': round(r[2]!) });
const asRecord = (w: Float64Array) =>
  Object.fromEntries(TURN_FEATURES.map((f, i) => [f, w[i]])) as Record<TurnFeature, number>;

function loadSamples(
  files: string[],
  cache: string | undefined,
  embedding?: BenchEmbedding,
): Promise<Sample[]> | Sample[] {
  if (cache && existsSync(cache)) return JSON.parse(readFileSync(cache, 'utf8')) as Sample[];
  return (async () => {
    const all: Sample[] = [];
    for (const conversation of files.flatMap(loadBenchData)) all.push(...(await samples(conversation, embedding)));
    if (cache) writeFileSync(cache, JSON.stringify(all));
    return all;
  })();
}

const ASSISTANT = TURN_FEATURES.indexOf('assistant');
/** Whether the ranker weighs the question with chatWeights: one of its scored turns is an assistant's. */
const isChat = (s: Sample) => {
  for (let r = 0; r < s.rows; r++) if (s.features[r * D + ASSISTANT] === 1) return true;
  return false;
};
/**
 * Features the fit leaves at their committed weight: those no question has a value for (a model's
 * cosine without a model); in chats the facts and entities, whose lists search computes only for a
 * nonzero turn weight; between named people the passage features and the entity links, which cost
 * a short turn's passage and a read per search and gained nothing left out (LoCoMo 0.803 and 0.804
 * with them, the same without).
 */
function frozenOf(set: Sample[], chat: boolean): Set<number> {
  const unused = TURN_FEATURES.map((_, k) => k).filter((k) =>
    set.every((s) => {
      for (let r = 0; r < s.rows; r++) if (s.features[r * D + k] !== 0) return false;
      return true;
    }),
  );
  const left: readonly TurnFeature[] = chat ? ['memory', 'entity'] : [...PASSAGE_FEATURES, 'entity'];
  return new Set([...unused, ...left.map((f) => TURN_FEATURES.indexOf(f))]);
}

type Weights = { named: Float64Array; chat: Float64Array };
type Fitting = { chat: Map<Sample, boolean>; frozen: { named: Set<number>; chat: Set<number> } };

const committedOf = (weights: Record<TurnFeature, number>) => Float64Array.from(TURN_FEATURES.map((f) => weights[f]));
const COMMITTED: Weights = { named: committedOf(DEFAULT_TURN_WEIGHTS), chat: committedOf(CHAT_TURN_WEIGHTS) };
const BM25 = TURN_FEATURES.indexOf('bm25');

/**
 * The fit's weights on a common scale: BM25 weighs 1 between named people, and the chat weights
 * sum (in absolute value) to what those do. A frozen feature keeps its committed weight, which is
 * how a model's cosine (weight 4, swept against BM25's 1: docs/benchmarks.md) stays in proportion.
 */
function scaled(fitted: { named: Float64Array; chat: Float64Array }, frozen: Fitting['frozen']): Weights {
  // A set with no questions to fit (one data set only) keeps the committed weights; dividing by
  // BM25's size, not its sign, keeps the order even if a tiny data set fits BM25 below 0.
  const bm25 = Math.abs(fitted.named[BM25]!);
  const named = bm25 ? fitted.named.map((w) => w / bm25) : COMMITTED.named.slice();
  const size = (w: Float64Array, skip: Set<number>) =>
    w.reduce((sum, x, k) => sum + (skip.has(k) ? 0 : Math.abs(x)), 0);
  const chatSize = size(fitted.chat, frozen.chat);
  const chat = chatSize ? fitted.chat.map((w) => (w * size(named, frozen.named)) / chatSize) : COMMITTED.chat.slice();
  for (const k of frozen.named) named[k] = COMMITTED.named[k]!;
  for (const k of frozen.chat) chat[k] = COMMITTED.chat[k]!;
  return { named, chat };
}

/**
 * Both sets fitted on `set` (each on its own questions), and a ranking of any sample by the set it
 * takes. A set `need` leaves out is not fitted (zeros: scaled() keeps the committed one); a left-out
 * conversation reads one set only, and scaling a set changes none of its orders.
 */
function fitBoth(f: Fitting, set: Sample[], need = { named: true, chat: true }) {
  const of = (chat: boolean) =>
    (chat ? need.chat : need.named)
      ? fitSoftmax(
          set.filter((s) => f.chat.get(s) === chat),
          D,
          chat ? f.frozen.chat : f.frozen.named,
        )
      : new Float64Array(D);
  const { named, chat } = scaled({ named: of(false), chat: of(true) }, f.frozen);
  return { named, chat, of: (s: Sample) => (f.chat.get(s) ? chat : named) };
}

/** Each conversation left out of the fit in turn: its questions' recall at 5/10/20 (and any@10) under the others' weights, and under the committed ones. */
function leaveOneOut(f: Fitting, all: Sample[]) {
  const currentOf = (s: Sample) => (f.chat.get(s) ? COMMITTED.chat : COMMITTED.named);
  const conversations = [];
  const heldOutOf = new Map<Sample, number[]>();
  const currentOfSample = new Map<Sample, number[]>();
  for (const name of [...new Set(all.map((s) => s.file))]) {
    const held = all.filter((s) => s.file === name);
    const weights = fitBoth(
      f,
      all.filter((s) => s.file !== name),
      { named: held.some((s) => !f.chat.get(s)), chat: held.some((s) => f.chat.get(s)) },
    );
    for (const s of held) {
      heldOutOf.set(s, [...recalls(weights.of(s), s), found(scored(weights.of(s), s), s, 10) > 0 ? 1 : 0]);
      currentOfSample.set(s, recalls(currentOf(s), s));
    }
    const mean = (of: Map<Sample, number[]>) =>
      [0, 1, 2].map((j) => held.reduce((sum, s) => sum + of.get(s)![j]!, 0) / held.length);
    const heldOut = mean(heldOutOf);
    const bm25 = recall(null, held);
    conversations.push({
      name,
      dataset: held[0]!.dataset,
      questions: held.length,
      chat: held.filter((s) => f.chat.get(s)).length,
      current: atK(mean(currentOfSample)),
      heldOut: atK(heldOut),
      bm25: atK(bm25),
      marginAt10: round(heldOut[1]! - bm25[1]),
    });
  }
  return { conversations, heldOutOf, currentOfSample };
}

/** Per data set and per category: the committed weights', the left-out and the plain BM25 recall. */
function byDataset(all: Sample[], heldOutOf: Map<Sample, number[]>, currentOfSample: Map<Sample, number[]>) {
  const meanOf = (set: Sample[], of: Map<Sample, number[]>, j: number) =>
    set.reduce((sum, s) => sum + of.get(s)![j]!, 0) / Math.max(1, set.length);
  const pooled = (set: Sample[]) => ({
    questions: set.length,
    current: atK([0, 1, 2].map((j) => meanOf(set, currentOfSample, j))),
    heldOut: atK([0, 1, 2].map((j) => meanOf(set, heldOutOf, j))),
    heldOutAnyAt10: round(meanOf(set, heldOutOf, 3)),
    bm25: atK(recall(null, set)),
  });
  const datasets = Object.fromEntries(
    [...new Set(all.map((s) => s.dataset))].map((d) => {
      const mine = all.filter((s) => s.dataset === d);
      const categories = [...new Set(mine.map((s) => s.category))].sort();
      const byCategory = Object.fromEntries(categories.map((c) => [c, pooled(mine.filter((s) => s.category === c))]));
      return [d, { ...pooled(mine), byCategory }];
    }),
  );
  return { datasets, all: pooled(all) };
}

export async function fitRanker(files: string[], options: { embedding?: BenchEmbedding; cache?: string } = {}) {
  const all = await loadSamples(files, options.cache, options.embedding);
  const chat = new Map(all.map((s) => [s, isChat(s)]));
  const frozen = {
    named: frozenOf(
      all.filter((s) => !chat.get(s)),
      false,
    ),
    chat: frozenOf(
      all.filter((s) => chat.get(s)),
      true,
    ),
  };
  const f: Fitting = { chat, frozen };
  const { conversations, heldOutOf, currentOfSample } = leaveOneOut(f, all);
  const fitted = fitBoth(f, all);
  const fittedRecall = [0, 1, 2].map((j) => all.reduce((sum, s) => sum + recalls(fitted.of(s), s)[j]!, 0) / all.length);
  return {
    conversations,
    ...byDataset(all, heldOutOf, currentOfSample),
    fitted: { recall: atK(fittedRecall), weights: asRecord(fitted.named), chatWeights: asRecord(fitted.chat) },
  };
}

async function main() {
  const { values, positionals } = parseArgs({
    options: {
      json: { type: 'boolean', default: false },
      write: { type: 'boolean', default: false },
      cache: { type: 'string' },
      ...EMBEDDING_FLAGS,
    },
    allowPositionals: true,
  });
  const { embedding, problem: embeddingProblem } = embeddingOf(values);
  const problem = embeddingProblem;
  if ((positionals.length < 2 && !(values.cache && existsSync(values.cache))) || problem) {
    process.stderr.write(
      `${problem ? `${problem}\n` : ''}usage: npm run bench:fit -- [--json] [--write] [--cache FILE] ${EMBEDDING_USAGE} FILE|FOLDER...  (two or more conversations)\n`,
    );
    process.exit(2);
  }
  const result = await fitRanker(positionals, {
    embedding,
    cache: values.cache,
  });
  if (values.write)
    process.stderr.write(`wrote ${writeTurnWeights(result.fitted.weights, result.fitted.chatWeights)}\n`);
  if (values.json) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  const r = (x: Record<string, number>) => `${x['5']} / ${x['10']} / ${x['20']}`;
  const lines = [
    'R@5 / 10 / 20; left out = weights fitted on the other conversations; margin = left out minus plain BM25, at 10',
    '',
  ];
  lines.push(
    ...textTable(
      ['conversation', 'chat questions', 'current', 'left out', 'plain bm25', 'margin'],
      result.conversations.map((c) => [
        c.name,
        `${c.chat} of ${c.questions}`,
        r(c.current),
        r(c.heldOut),
        r(c.bm25),
        c.marginAt10,
      ]),
    ),
  );
  for (const [name, d] of Object.entries(result.datasets)) {
    lines.push(
      '',
      `## ${name}: ${d.questions} questions; left out, any evidence turn in the top 10: ${d.heldOutAnyAt10}`,
    );
    const row = (label: string, x: typeof d) => [
      label,
      x.questions,
      r(x.current),
      r(x.heldOut),
      r(x.bm25),
      round(x.heldOut['10'] - x.bm25['10']),
    ];
    lines.push(
      ...textTable(
        ['category', 'questions', 'current', 'left out', 'plain bm25', 'margin'],
        [row('all', d), ...Object.entries(d.byCategory).map(([c, x]) => row(categoryLabel(c), x as typeof d))],
      ),
    );
  }
  lines.push(
    '',
    `fitted on all: ${r(result.fitted.recall)}`,
    `weights: ${JSON.stringify(result.fitted.weights)}`,
    `chatWeights: ${JSON.stringify(result.fitted.chatWeights)}`,
  );
  process.stdout.write(`${lines.join('\n')}\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) await runMain(main);
