// Context benchmark: does the block that reaches the model hold the evidence? Each LoCoMo or BEAM
// conversation goes in as bench:locomo loads it; then, for every question with evidence (LoCoMo's
// adversarial category 5 and BEAM's abstention questions have none and are not asked), context is built with the question as the query in a fresh session, at each token
// budget. Evidence-in-context: an evidence turn is in when the block holds the turn's line (its
// text), a fact whose provenance is that turn, or a timeline line drawn from it (a line quotes a
// request and the first words of its answer: it counts for those two turns, not its session;
// "context, lines count requests" counts it for the request alone). "context without timeline"
// is the same block built without one, in the same run. Reported as recall (the share of a question's
// evidence turns in the block, averaged, as bench:locomo's R@k) and as "any" (questions with at
// least one in), with tokens used. Two yardsticks, in the same run: the top search turns (search
// kinds: turn) and the plain BM25 baseline's top turns (bench:locomo's), each packed in rank order,
// written and counted the same way, into the same budget. Each data set is reported on its own.
//   npm run bench:context -- [--json] [--budgets 500,1000,2000] [--fit] [--embedding-endpoint URL --embedding-model NAME [--embedding-dimensions N]] FILE|FOLDER...
// With an embedding endpoint both the block and the yardstick's search rank with the model (the
// question embedded as a server embeds it); --fit does not take one.
// --fit fits the packing values (server/core/context/context-pack.ts) by coordinate ascent and reports
// each conversation packed with values fitted on the others (leave one conversation out).
import { parseArgs } from 'node:util';
import { getContext } from '../server/core/context/context.ts';
import { collectCandidates } from '../server/core/context/context-candidates.ts';
import {
  DEFAULT_PACK_TUNING,
  pack,
  type Candidate,
  type PackTuning,
  type Packed,
} from '../server/core/context/context-pack.ts';
import { countTokens, TOKENIZER } from '../server/core/text/token-count.ts';
import { quoteOf } from '../server/core/text/passages.ts';
import { closeStore } from '../server/storage/sqlite/open.ts';
import { assembleContext } from '../server/services/context.ts';
import {
  bm25Retriever,
  categoryLabel,
  EMBEDDING_FLAGS,
  EMBEDDING_USAGE,
  embeddingOf,
  loadConversation,
  searchLoaded,
  textTable,
  type BenchEmbedding,
} from './locomo.ts';
import { loadBenchData } from './bench-data.ts';
import { runMain } from './run-main.ts';
import { percentile, round } from './stats.ts';

const SESSION = 'bench:context';
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

type Row = {
  system: string;
  budget: number;
  dataset: string;
  category: string;
  conversation: string;
  recall: number;
  any: number;
  tokens: number;
  ms: number;
};

/**
 * The evidence turns a set of items covers: turns themselves, facts' source turns, and the turns a
 * timeline line quotes (its request and the answer's first words; with `requestsOnly`, the request alone).
 */
function covered(
  items: { kind: string; id: number; sourceTurnIds: number[] }[],
  timeline: { turnIds: number[] }[] = [],
  requestsOnly = false,
): Set<number> {
  const out = new Set<number>();
  for (const item of items) {
    if (item.kind === 'turn') out.add(item.id);
    else for (const id of item.sourceTurnIds) out.add(id); // a memory (fact, standing memory): its source turns
  }
  for (const entry of timeline) for (const id of requestsOnly ? entry.turnIds.slice(0, 1) : entry.turnIds) out.add(id);
  return out;
}

const score = (evidence: number[], got: Set<number>) => {
  const n = evidence.filter((id) => got.has(id)).length;
  return { recall: n / evidence.length, any: n > 0 ? 1 : 0 };
};

/** The yardstick: search's top turns, in rank order, each that still fits, under the block's turn heading. */
function packedSearchTurns(hits: { id: number; line: string }[], budget: number) {
  const heading = '## Conversation excerpts';
  const lines: string[] = [];
  const ids: number[] = [];
  let used = countTokens(`${heading}\n`);
  for (const hit of hits) {
    const cost = countTokens(`${hit.line}\n`);
    if (used + cost > budget) continue;
    used += cost;
    lines.push(hit.line);
    ids.push(hit.id);
  }
  const markdown = lines.length ? [heading, ...lines].join('\n') : '';
  return { ids, tokens: countTokens(markdown) };
}

type Question = {
  conversation: string;
  dataset: string;
  category: string;
  evidence: number[];
  candidates: Candidate[];
};

export async function runContextBench(
  files: string[],
  budgets: number[],
  options: { fit?: boolean; embedding?: BenchEmbedding } = {},
) {
  const rows: Row[] = [];
  const cached: Question[] = [];
  const maxBudget = Math.max(...budgets);
  for (const conversation of files.flatMap(loadBenchData)) {
    const loaded = await loadConversation(conversation, 0, options.embedding);
    const { store, space, runtime } = loaded;
    const plain = bm25Retriever(loaded);
    const turnsById = new Map(loaded.turns.map((t) => [t.id, t]));
    for (const q of loaded.questions) {
      const base = { dataset: loaded.dataset, category: q.category, conversation: loaded.name };
      const plainHits = (await plain.retrieve(q.text, 200)).map((id) => {
        const t = turnsById.get(id)!;
        return { id, line: `[${day(t.at)}] ${t.speaker}: ${t.text.replace(/\s*\n\s*/g, ' ').trim()}` };
      });
      // Search's turns for the yardstick, written as the block writes turns.
      const turnHits = (await searchLoaded(loaded, { query: q.text, kinds: ['turn'], limit: 200 })).hits.map((h) => ({
        id: h.id,
        line: `[${day(h.turn!.at)}] ${h.turn!.name ?? h.turn!.role}: ${quoteOf(h.turn!.text, h.passage)
          .replace(/\s*\n\s*/g, ' ')
          .trim()}`,
      }));
      for (const budget of budgets) {
        const t0 = performance.now();
        const input = { sessionId: SESSION, query: q.text, tokenBudget: budget };
        const context = options.embedding
          ? await assembleContext(runtime, space, input)
          : await getContext(store, space, input);
        const ms = performance.now() - t0;
        for (const item of context.items)
          if (!context.markdown.includes(item.line))
            throw new Error(`item ${item.kind} ${item.id} is not in the markdown`);
        for (const entry of context.timeline.entries)
          if (!context.markdown.includes(entry.line))
            throw new Error(`timeline entry ${entry.turnIds[0]} is not in the markdown`);
        if (context.tokensUsed !== countTokens(context.markdown) || context.tokensUsed > budget)
          throw new Error(`tokensUsed ${context.tokensUsed} is not the block's count within ${budget}`);
        rows.push({
          system: 'context',
          budget,
          ...base,
          ...score(q.evidence, covered(context.items, context.timeline.entries)),
          tokens: context.tokensUsed,
          ms,
        });
        // The same block with its timeline lines counted for their requests only, and the block as built without a timeline.
        rows.push({
          system: 'context, lines count requests',
          budget,
          ...base,
          ...score(q.evidence, covered(context.items, context.timeline.entries, true)),
          tokens: context.tokensUsed,
          ms: 0,
        });
        if (!options.embedding) {
          const without = await getContext(store, space, input, { timeline: false });
          rows.push({
            system: 'context without timeline',
            budget,
            ...base,
            ...score(q.evidence, covered(without.items)),
            tokens: without.tokensUsed,
            ms: 0,
          });
        }
        const yard = packedSearchTurns(turnHits, budget);
        rows.push({
          system: 'search turns packed',
          budget,
          ...base,
          ...score(q.evidence, new Set(yard.ids)),
          tokens: yard.tokens,
          ms: 0,
        });
        const baseline = packedSearchTurns(plainHits, budget);
        rows.push({
          system: 'bm25 turns packed',
          budget,
          ...base,
          ...score(q.evidence, new Set(baseline.ids)),
          tokens: baseline.tokens,
          ms: 0,
        });
      }
      if (options.fit)
        cached.push({
          ...base,
          evidence: q.evidence,
          candidates: (
            await collectCandidates(store, space, { query: q.text, tokenBudget: maxBudget, window: new Set() })
          ).map((s) => s.candidate),
        });
    }
    await closeStore(store);
  }
  const datasets = [...new Set(rows.map((r) => r.dataset))];
  const asked = (set: Row[]) => set.filter((r) => r.system === 'context').length / budgets.length;
  return {
    tokenizer: TOKENIZER,
    questions: asked(rows),
    budgets,
    ...summarise(rows, budgets),
    datasets: Object.fromEntries(
      datasets.map((d) => [
        d,
        {
          questions: asked(rows.filter((r) => r.dataset === d)),
          ...summarise(
            rows.filter((r) => r.dataset === d),
            budgets,
          ),
        },
      ]),
    ),
    ...(options.fit ? { fit: fitPacking(cached, budgets) } : {}),
  };
}

type Cell = { recall: number; any: number; tokens: number; n: number };

function cell(rows: Row[]): Cell {
  const mean = (f: (r: Row) => number) => round(rows.reduce((s, r) => s + f(r), 0) / Math.max(1, rows.length));
  return {
    recall: mean((r) => r.recall),
    any: mean((r) => r.any),
    tokens: Math.round(rows.reduce((s, r) => s + r.tokens, 0) / Math.max(1, rows.length)),
    n: rows.length,
  };
}

function summarise(rows: Row[], budgets: number[]) {
  const systems = [...new Set(rows.map((r) => r.system))];
  const categories = [...new Set(rows.map((r) => r.category))].sort();
  const conversations = [...new Set(rows.map((r) => r.conversation))];
  const table = systems.map((system) => ({
    system,
    budgets: Object.fromEntries(
      budgets.map((budget) => {
        const mine = rows.filter((r) => r.system === system && r.budget === budget);
        return [
          String(budget),
          {
            all: cell(mine),
            byCategory: Object.fromEntries(
              categories.map((c) => [String(c), cell(mine.filter((r) => r.category === c))]),
            ),
            byConversation: Object.fromEntries(
              conversations.map((c) => [c, cell(mine.filter((r) => r.conversation === c))]),
            ),
            ...(system === 'context'
              ? {
                  latencyMs: {
                    p50: round(
                      percentile(
                        mine.map((r) => r.ms),
                        50,
                      ),
                      2,
                    ),
                    p95: round(
                      percentile(
                        mine.map((r) => r.ms),
                        95,
                      ),
                      2,
                    ),
                  },
                }
              : {}),
          },
        ];
      }),
    ),
  }));
  return { systems: table };
}

// Packing values fitted by coordinate ascent on mean recall over the budgets.
// Reflections and superseded facts are rare in LoCoMo (no weekly reflection runs while it loads),
// so their weights keep their defaults; the fill tier only matters when query hits run out.
const GRID: Partial<Record<keyof PackTuning, number[]>> = {
  decay: [0.5, 1, 1.5, 2, 3],
  offset: [0, 1, 2, 4, 8],
  fact: [0, 0.25, 0.5, 1, 1.5],
  projected: [0, 0.25, 0.5, 1, 1.5, 2],
  factAfterTurn: [0, 0.1, 0.25, 0.5],
  turnAfterFact: [0, 0.1, 0.25, 0.5, 0.75],
  length: [0.25, 0.5, 0.75, 1],
};

function recallOf(questions: Question[], budgets: number[], tuning: PackTuning): number {
  let sum = 0;
  for (const q of questions) {
    for (const budget of budgets) {
      const { items } = pack(q.candidates, budget, tuning);
      sum += score(q.evidence, covered(items.map((p: Packed) => p.candidate))).recall;
    }
  }
  return sum / Math.max(1, questions.length * budgets.length);
}

function fit(questions: Question[], budgets: number[], start: PackTuning): PackTuning {
  const t = { ...start };
  let best = recallOf(questions, budgets, t);
  for (let pass = 0; pass < 2; pass++) {
    let improved = false;
    for (const key of Object.keys(GRID) as (keyof PackTuning)[]) {
      let bestValue = t[key];
      for (const value of GRID[key]!) {
        if (value === bestValue) continue;
        const r = recallOf(questions, budgets, { ...t, [key]: value });
        if (r > best + 1e-9) (best = r), (bestValue = value), (improved = true);
      }
      t[key] = bestValue;
    }
    if (!improved) break;
  }
  return t;
}

function fitPacking(questions: Question[], budgets: number[]) {
  const names = [...new Set(questions.map((q) => q.conversation))];
  const perBudget = (set: Question[], tuning: PackTuning) =>
    Object.fromEntries(budgets.map((b) => [String(b), round(recallOf(set, [b], tuning))]));
  const conversations = names.map((name) => {
    const held = questions.filter((q) => q.conversation === name);
    const tuning = fit(
      questions.filter((q) => q.conversation !== name),
      budgets,
      DEFAULT_PACK_TUNING,
    );
    return {
      name,
      questions: held.length,
      current: perBudget(held, DEFAULT_PACK_TUNING),
      heldOut: perBudget(held, tuning),
      tuning,
    };
  });
  const pooled = Object.fromEntries(
    budgets.map((b) => [
      String(b),
      round(conversations.reduce((s, c) => s + c.heldOut[String(b)]! * c.questions, 0) / questions.length),
    ]),
  );
  const fitted = fit(questions, budgets, DEFAULT_PACK_TUNING);
  return {
    conversations,
    current: perBudget(questions, DEFAULT_PACK_TUNING),
    heldOut: pooled,
    fitted: { recall: perBudget(questions, fitted), tuning: fitted },
  };
}

async function main() {
  const { values, positionals } = parseArgs({
    options: {
      json: { type: 'boolean', default: false },
      budgets: { type: 'string', default: '500,1000,2000' },
      fit: { type: 'boolean', default: false },
      ...EMBEDDING_FLAGS,
    },
    allowPositionals: true,
  });
  const budgets = values.budgets.split(',').map(Number);
  const { embedding, problem: flagProblem } = embeddingOf(values);
  const problem = flagProblem ?? (values.fit && embedding ? '--fit does not take an embedding endpoint' : '');
  if (
    problem ||
    positionals.length === 0 ||
    budgets.some((b) => !Number.isInteger(b) || b < 50 || b > 32_000) ||
    (values.fit && positionals.length < 2)
  ) {
    process.stderr.write(
      `${problem ? `${problem}\n` : ''}usage: npm run bench:context -- [--json] [--budgets 500,1000,2000] [--fit] ${EMBEDDING_USAGE} FILE...  (--fit: two or more conversations)\n`,
    );
    process.exit(2);
  }
  const result = await runContextBench(positionals, budgets, { fit: values.fit, embedding });
  if (values.json) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  const out = [
    `${result.questions} questions from ${positionals.length} path(s); tokens: ${result.tokenizer}; evidence = mean share of evidence turns in the block, any = questions with one in`,
  ];
  for (const [name, part] of Object.entries(result.datasets)) {
    out.push('', `## ${name}: ${part.questions} questions`);
    const rows = budgets.flatMap((b) =>
      part.systems.map((s) => {
        const x = s.budgets[String(b)]!;
        const latency = 'latencyMs' in x ? `${x.latencyMs!.p50} / ${x.latencyMs!.p95}` : '';
        return [b, s.system, x.all.recall, x.all.any, x.all.tokens, latency];
      }),
    );
    out.push(...textTable(['budget', 'system', 'evidence', 'any', 'tokens', 'p50 / p95 ms'], rows));
    // Per category, evidence at each budget: the block, its timeline lines counted for their requests only,
    // the block without a timeline, then the plain BM25 baseline packed.
    const categories = Object.keys(part.systems[0]!.budgets[String(budgets[0])]!.byCategory);
    const short: Record<string, string> = {
      context: 'context',
      'context, lines count requests': 'requests',
      'context without timeline': 'without',
      'bm25 turns packed': 'bm25',
    };
    const shown = part.systems.filter((s) => short[s.system]);
    const head = ['category', ...shown.flatMap((s) => budgets.map((b) => `${short[s.system]}@${b}`))];
    out.push(
      '',
      ...textTable(
        head,
        categories.map((c) => [
          categoryLabel(c),
          ...shown.flatMap((s) => budgets.map((b) => s.budgets[String(b)]!.byCategory[c]!.recall)),
        ]),
      ),
    );
  }
  if (result.fit) {
    const f = result.fit;
    const r = (x: Record<string, number>) => budgets.map((b) => x[String(b)]).join(' / ');
    out.push('', `packing values fitted, evidence at ${budgets.join(' / ')}: current values vs left out of the fit`);
    for (const c of f.conversations) out.push(`${c.name.padEnd(12)}  ${r(c.current)}   ${r(c.heldOut)}`);
    out.push(
      `${'all'.padEnd(12)}  ${r(f.current)}   ${r(f.heldOut)}`,
      `fitted on all: ${r(f.fitted.recall)}  ${JSON.stringify(f.fitted.tuning)}`,
    );
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) await runMain(main);
