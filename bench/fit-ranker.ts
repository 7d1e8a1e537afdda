// Fits the turn ranker's weights (server/core/search/turn-ranker.ts) on LoCoMo conversations by
// coordinate ascent on evidence recall (@10, plus a quarter each of @5 and @20), and reports how
// the fit does on each conversation when that conversation is left out of the fitting.
//   npm run bench:fit -- [--json] [--embedding-endpoint URL --embedding-model NAME [--embedding-dimensions N]] FILE FILE...
import { runMain } from './run-main.ts';
import { parseArgs } from 'node:util';
import { DEFAULT_TURN_WEIGHTS } from '../server/core/search/turn-ranker.ts';
import { TURN_FEATURES, type TurnFeature } from '../server/core/search/turn-features.ts';
import { closeStore } from '../server/db/open.ts';
import { EMBEDDING_FLAGS, EMBEDDING_USAGE, embeddingOf, loadConversation, searchLoaded, type BenchEmbedding } from './locomo.ts';
import { loadBenchData, type BenchConversation } from './bench-data.ts';
import { round } from './stats.ts';

/** One question: the scored turns' features (row-major) and which rows are evidence. */
type Sample = { file: string; dataset: string; category: string; rows: number; features: Float64Array; evidence: number[] };

const D = TURN_FEATURES.length;
const GRID = [-2, -1, -0.5, -0.3, -0.1, 0, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 4];

async function samples(conversation: BenchConversation, embedding?: BenchEmbedding): Promise<Sample[]> {
  const loaded = await loadConversation(conversation, 0, embedding);
  const out: Sample[] = [];
  for (const question of loaded.questions) {
    const features = new Map<number, number[]>();
    await searchLoaded(loaded, { query: question.text, kinds: ['turn'], limit: 1 }, { turnFeatures: features });
    const ids = [...features.keys()];
    const index = new Map(ids.map((id, i) => [id, i]));
    // Evidence the candidates missed can never be ranked: -1 counts as a miss at every k.
    out.push({ file: loaded.name, dataset: loaded.dataset, category: question.category, rows: ids.length, features: Float64Array.from(ids.flatMap((id) => features.get(id)!)), evidence: question.evidence.map((id) => index.get(id) ?? -1) });
  }
  await closeStore(loaded.store);
  return out;
}

/** Each candidate's score under `weights` (ties broken by the lexical order). */
function scored(weights: Float64Array, s: Sample): Float64Array {
  const score = new Float64Array(s.rows);
  for (let r = 0; r < s.rows; r++) {
    let x = 0;
    for (let k = 0; k < D; k++) x += weights[k]! * s.features[r * D + k]!;
    score[r] = x - r * 1e-9;
  }
  return score;
}

/** How many of the sample's evidence turns rank in the top k. */
function found(score: Float64Array, s: Sample, k: number): number {
  let hit = 0;
  for (const e of s.evidence) {
    if (e < 0) continue;
    let above = 0;
    for (let r = 0; r < s.rows && above < k; r++) if (score[r]! > score[e]!) above++;
    if (above < k) hit++;
  }
  return hit;
}

/** Mean recall at 5, 10 and 20 of the ranking `weights` give. */
export function recall(weights: Float64Array, set: Sample[]): [number, number, number] {
  const sums = [0, 0, 0];
  for (const s of set) {
    const score = scored(weights, s);
    [5, 10, 20].forEach((k, j) => (sums[j]! += s.evidence.length ? found(score, s, k) / s.evidence.length : 0));
  }
  return sums.map((x) => x / Math.max(1, set.length)) as [number, number, number];
}

/** The share of questions with at least one evidence turn in the top 10. */
export function anyAt10(weights: Float64Array, set: Sample[]): number {
  return set.filter((s) => found(scored(weights, s), s, 10) > 0).length / Math.max(1, set.length);
}

const objective = (r: number[]) => r[1]! + 0.25 * (r[0]! + r[2]!);

export function fit(set: Sample[], start: Float64Array): Float64Array {
  const w = Float64Array.from(start);
  let best = objective(recall(w, set));
  for (let round = 0; round < 5; round++) {
    let improved = false;
    // bm25 stays 1: it sets the scale the other weights are read against.
    for (let k = 1; k < D; k++) {
      let bestValue = w[k]!;
      for (const value of GRID) {
        w[k] = value;
        const o = objective(recall(w, set));
        if (o > best + 1e-9) (best = o), (bestValue = value), (improved = true);
      }
      w[k] = bestValue;
    }
    if (!improved) break;
  }
  return w;
}

const fmt = (r: number[]) => r.map((x) => x.toFixed(3)).join(' / ');
const atK = (r: number[]) => ({ '5': round(r[0]!), '10': round(r[1]!), '20': round(r[2]!) });
const asRecord = (w: Float64Array) => Object.fromEntries(TURN_FEATURES.map((f, i) => [f, w[i]])) as Record<TurnFeature, number>;

export async function fitRanker(files: string[], embedding?: BenchEmbedding) {
  const all: Sample[] = [];
  for (const conversation of files.flatMap(loadBenchData)) all.push(...(await samples(conversation, embedding)));
  const current = Float64Array.from(TURN_FEATURES.map((f) => DEFAULT_TURN_WEIGHTS[f]));
  const conversations = [];
  const pooled = [0, 0, 0];
  let pooledAny = 0;
  // Per question category (1 multi-hop, 2 temporal, 3 inference, 4 single-hop): summed recall@10 and counts, left out.
  const byCategory = new Map<string, { sum: number; any: number; n: number }>();
  for (const name of [...new Set(all.map((s) => s.file))]) {
    const held = all.filter((s) => s.file === name);
    const weights = fit(all.filter((s) => s.file !== name), current);
    const heldOut = recall(weights, held);
    heldOut.forEach((x, i) => (pooled[i]! += x * held.length));
    pooledAny += anyAt10(weights, held) * held.length;
    for (const category of new Set(held.map((s) => s.category))) {
      const these = held.filter((s) => s.category === category);
      const tally = byCategory.get(category) ?? { sum: 0, any: 0, n: 0 };
      tally.sum += recall(weights, these)[1] * these.length;
      tally.any += anyAt10(weights, these) * these.length;
      tally.n += these.length;
      byCategory.set(category, tally);
    }
    conversations.push({ name, questions: held.length, current: atK(recall(current, held)), heldOut: atK(heldOut) });
  }
  const fitted = fit(all, current);
  return {
    conversations,
    all: {
      questions: all.length,
      current: atK(recall(current, all)),
      heldOut: atK(pooled.map((x) => x / all.length)),
      /** Left out of the fit: questions with any evidence turn in the top 10. */
      heldOutAnyAt10: round(pooledAny / all.length),
      heldOutByCategory: Object.fromEntries([...byCategory].sort((a, b) => a[0].localeCompare(b[0])).map(([c, t]) => [String(c), round(t.sum / t.n)])),
      heldOutAnyAt10ByCategory: Object.fromEntries([...byCategory].sort((a, b) => a[0].localeCompare(b[0])).map(([c, t]) => [String(c), round(t.any / t.n)])),
    },
    fitted: { recall: atK(recall(fitted, all)), weights: asRecord(fitted) },
  };
}

async function main() {
  const { values, positionals } = parseArgs({ options: { json: { type: 'boolean', default: false }, ...EMBEDDING_FLAGS }, allowPositionals: true });
  const { embedding, problem } = embeddingOf(values);
  if (positionals.length < 2 || problem) {
    process.stderr.write(`${problem ? `${problem}\n` : ''}usage: npm run bench:fit -- [--json] ${EMBEDDING_USAGE} FILE FILE...  (two or more LoCoMo conversations)\n`);
    process.exit(2);
  }
  const result = await fitRanker(positionals, embedding);
  if (values.json) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  const r = (x: Record<string, number>) => fmt([x['5']!, x['10']!, x['20']!]);
  const lines = ['conversation  current R@5/10/20     left out of the fit R@5/10/20'];
  for (const c of result.conversations) lines.push(`${c.name.padEnd(12)}  ${r(c.current)}   ${r(c.heldOut)}`);
  lines.push(`${'all'.padEnd(12)}  ${r(result.all.current)}   ${r(result.all.heldOut)}`);
  lines.push(
    `left out of the fit, questions with an evidence turn in the top 10: ${result.all.heldOutAnyAt10.toFixed(3)} (${Object.entries(result.all.heldOutAnyAt10ByCategory).map(([c, x]) => `cat${c} ${x.toFixed(3)}`).join(', ')})`,
  );
  lines.push(`left out of the fit, R@10 by category: ${Object.entries(result.all.heldOutByCategory).map(([c, x]) => `cat${c} ${x.toFixed(3)}`).join(', ')}`);
  lines.push(`fitted on all: ${r(result.fitted.recall)}`, JSON.stringify(result.fitted.weights));
  process.stdout.write(lines.join('\n') + '\n');
}

if (import.meta.url === `file://${process.argv[1]}`) await runMain(main);
