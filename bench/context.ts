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
//   npm run bench:context -- [--json] [--budgets 500,1000,2000] [--questions] [--fit | --fit-timeline] [--embedding-endpoint URL --embedding-model NAME [--embedding-dimensions N]] FILE|FOLDER...
// With an embedding endpoint both the block and the yardstick's search rank with the model (the
// question embedded as a server embeds it); --fit does not take one.
// --fit fits the packing values (context-fit.ts) and --fit-timeline the timeline's constants
// (context-timeline-fit.ts), each reporting every conversation with values fitted on the others.
import { parseArgs } from 'node:util';
import { getContext } from '../server/core/context/context.ts';
import { collectCandidates, isChat } from '../server/core/context/context-candidates.ts';
import { countTokens, TOKENIZER } from '../server/core/text/token-count.ts';
import { quoteOf } from '../server/core/text/passages.ts';
import { closeStore } from '../server/storage/sqlite/open.ts';
import { assembleContext } from '../server/services/context.ts';
import { bm25Retriever, categoryLabel, textTable } from './locomo.ts';
import {
  type BenchEmbedding,
  EMBEDDING_FLAGS,
  EMBEDDING_USAGE,
  embeddingOf,
  loadConversation,
  searchLoaded,
} from './loaded-conversation.ts';
import { loadBenchData } from './bench-data.ts';
import { fitPacking, printPackingFit, type FitQuestion } from './context-fit.ts';
import { covered, packedSearchTurns, score, summarise, type Row } from './context-score.ts';
import { fitTimeline, printTimelineFit } from './context-timeline-fit.ts';
import { runMain } from './run-main.ts';
import { round } from './stats.ts';

const SESSION = 'bench:context';
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const oneLine = (text: string) => text.replace(/\s*\n\s*/g, ' ').trim();

type Loaded = Awaited<ReturnType<typeof loadConversation>>;
type Asked = Loaded['questions'][number];
type Hit = { id: number; line: string };
type Options = { fit?: boolean; questions?: boolean; embedding?: BenchEmbedding };

/** The yardsticks' turns for a question: the plain BM25 baseline's and search's, written as the block writes turns. */
async function yardstickHits(loaded: Loaded, q: Asked): Promise<{ plain: Hit[]; search: Hit[] }> {
  const turnsById = new Map(loaded.turns.map((t) => [t.id, t]));
  const plain = (await bm25Retriever(loaded).retrieve(q.text, 200)).map((id) => {
    const t = turnsById.get(id)!;
    return { id, line: `[${day(t.at)}] ${t.speaker}: ${oneLine(t.text)}` };
  });
  const search = (await searchLoaded(loaded, { query: q.text, kinds: ['turn'], limit: 200 })).hits.map((h) => ({
    id: h.id,
    line: `[${day(h.turn!.at)}] ${h.turn!.name ?? h.turn!.role}: ${oneLine(quoteOf(h.turn!.text, h.passage))}`,
  }));
  return { plain, search };
}

/** The block for a question at one budget, checked for what it claims (items in the markdown, tokens within the budget). */
async function checkedContext(loaded: Loaded, q: Asked, budget: number, embedding?: BenchEmbedding) {
  const t0 = performance.now();
  const input = { sessionId: SESSION, query: q.text, tokenBudget: budget };
  const context = embedding
    ? await assembleContext(loaded.runtime, loaded.space, input)
    : await getContext(loaded.store, loaded.space, input);
  const ms = performance.now() - t0;
  for (const item of context.items)
    if (!context.markdown.includes(item.line)) throw new Error(`item ${item.kind} ${item.id} is not in the markdown`);
  for (const entry of context.timeline.entries)
    if (!context.markdown.includes(entry.line))
      throw new Error(`timeline entry ${entry.turnIds[0]} is not in the markdown`);
  if (context.tokensUsed !== countTokens(context.markdown) || context.tokensUsed > budget)
    throw new Error(`tokensUsed ${context.tokensUsed} is not the block's count within ${budget}`);
  return { context, ms };
}

/** The rows of one question at one budget: the block (lines counted whole and for requests), without a timeline, the yardsticks. */
async function askAt(
  loaded: Loaded,
  q: Asked,
  budget: number,
  hits: { plain: Hit[]; search: Hit[] },
  options: Options,
) {
  const base = { dataset: loaded.dataset, category: q.category, conversation: loaded.name, question: q.text, budget };
  const { context, ms } = await checkedContext(loaded, q, budget, options.embedding);
  const row = (system: string, got: Set<number>, tokens: number, ms = 0): Row => ({
    system,
    ...base,
    ...score(q.evidence, got),
    tokens,
    ms,
  });
  const rows = [
    row('context', covered(context.items, context.timeline.entries), context.tokensUsed, ms),
    row('context, lines count requests', covered(context.items, context.timeline.entries, true), context.tokensUsed),
  ];
  if (!options.embedding) {
    const input = { sessionId: SESSION, query: q.text, tokenBudget: budget };
    const without = await getContext(loaded.store, loaded.space, input, { timeline: false });
    rows.push(row('context without timeline', covered(without.items), without.tokensUsed));
  }
  const yard = packedSearchTurns(hits.search, budget);
  const baseline = packedSearchTurns(hits.plain, budget);
  rows.push(row('search turns packed', new Set(yard.ids), yard.tokens));
  rows.push(row('bm25 turns packed', new Set(baseline.ids), baseline.tokens));
  return rows;
}

export async function runContextBench(files: string[], budgets: number[], options: Options = {}) {
  const rows: Row[] = [];
  const cached: FitQuestion[] = [];
  const maxBudget = Math.max(...budgets);
  for (const conversation of files.flatMap(loadBenchData)) {
    const loaded = await loadConversation(conversation, 0, options.embedding);
    for (const q of loaded.questions) {
      const hits = await yardstickHits(loaded, q);
      for (const budget of budgets) rows.push(...(await askAt(loaded, q, budget, hits, options)));
      if (!options.fit) continue;
      const input = { query: q.text, tokenBudget: maxBudget, window: new Set<number>() };
      const sources = await collectCandidates(loaded.store, loaded.space, input);
      cached.push({
        chat: isChat(sources),
        dataset: loaded.dataset,
        category: q.category,
        conversation: loaded.name,
        evidence: q.evidence,
        candidates: sources.map((s) => s.candidate),
      });
    }
    await closeStore(loaded.store);
  }
  const datasets = [...new Set(rows.map((r) => r.dataset))];
  const asked = (set: Row[]) => set.filter((r) => r.system === 'context').length / budgets.length;
  const ofDataset = (d: string) => rows.filter((r) => r.dataset === d);
  return {
    tokenizer: TOKENIZER,
    questions: asked(rows),
    budgets,
    ...summarise(rows, budgets),
    datasets: Object.fromEntries(
      datasets.map((d) => [d, { questions: asked(ofDataset(d)), ...summarise(ofDataset(d), budgets) }]),
    ),
    ...(options.fit ? { fit: fitPacking(cached, budgets) } : {}),
    ...(options.questions ? { perQuestion: perQuestion(rows) } : {}),
  };
}

/** The block's evidence for each question at each budget: two runs' lines diff to the questions that moved. */
const perQuestion = (rows: Row[]) =>
  rows
    .filter((r) => r.system === 'context')
    .map(({ conversation, category, budget, recall, question }) => ({
      conversation,
      category,
      budget,
      recall,
      question,
    }));

type Result = Awaited<ReturnType<typeof runContextBench>>;

/** Short names of the systems in the per-category table. */
const SHORT: Record<string, string> = {
  context: 'context',
  'context, lines count requests': 'requests',
  'context without timeline': 'without',
  'bm25 turns packed': 'bm25',
};

/** A data set's tables: each system at each budget, then evidence per category (the block, requests only, without a timeline, plain BM25 packed). */
function printDataset(name: string, part: Result['datasets'][string], budgets: number[]): string[] {
  const out = ['', `## ${name}: ${part.questions} questions`];
  const rows = budgets.flatMap((b) =>
    part.systems.map((s) => {
      const x = s.budgets[String(b)]!;
      const latency = 'latencyMs' in x ? `${x.latencyMs!.p50} / ${x.latencyMs!.p95}` : '';
      return [b, s.system, x.all.recall, x.all.any, x.all.tokens, latency];
    }),
  );
  out.push(...textTable(['budget', 'system', 'evidence', 'any', 'tokens', 'p50 / p95 ms'], rows));
  const categories = Object.keys(part.systems[0]!.budgets[String(budgets[0])]!.byCategory);
  const shown = part.systems.filter((s) => SHORT[s.system]);
  const head = ['category', ...shown.flatMap((s) => budgets.map((b) => `${SHORT[s.system]}@${b}`))];
  const byCategory = categories.map((c) => [
    categoryLabel(c),
    ...shown.flatMap((s) => budgets.map((b) => s.budgets[String(b)]!.byCategory[c]!.recall)),
  ]);
  out.push('', ...textTable(head, byCategory));
  return out;
}

function usage(problem: string) {
  process.stderr.write(
    `${problem ? `${problem}\n` : ''}usage: npm run bench:context -- [--json] [--budgets 500,1000,2000] [--questions] [--fit | --fit-timeline] ${EMBEDDING_USAGE} FILE...  (a fit: two or more conversations)\n`,
  );
  process.exit(2);
}

async function main() {
  const { values, positionals } = parseArgs({
    options: {
      json: { type: 'boolean', default: false },
      budgets: { type: 'string', default: '500,1000,2000' },
      fit: { type: 'boolean', default: false },
      'fit-timeline': { type: 'boolean', default: false },
      questions: { type: 'boolean', default: false },
      ...EMBEDDING_FLAGS,
    },
    allowPositionals: true,
  });
  const budgets = values.budgets.split(',').map(Number);
  const fitting = values.fit || values['fit-timeline'];
  const { embedding, problem: flagProblem } = embeddingOf(values);
  const problem =
    flagProblem ??
    (fitting && embedding ? `${values.fit ? '--fit' : '--fit-timeline'} does not take an embedding endpoint` : '');
  if (
    problem ||
    positionals.length === 0 ||
    budgets.some((b) => !Number.isInteger(b) || b < 50 || b > 32_000) ||
    (fitting && positionals.length < 2)
  )
    usage(problem);
  if (values['fit-timeline']) {
    const fit = await fitTimeline(positionals, budgets);
    process.stdout.write(values.json ? `${JSON.stringify(fit)}\n` : `${printTimelineFit(fit)}\n`);
    return;
  }
  const result = await runContextBench(positionals, budgets, {
    fit: values.fit,
    questions: values.questions,
    embedding,
  });
  if (values.json) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  const out = [
    `${result.questions} questions from ${positionals.length} path(s); tokens: ${result.tokenizer}; evidence = mean share of evidence turns in the block, any = questions with one in`,
  ];
  for (const [name, part] of Object.entries(result.datasets)) out.push(...printDataset(name, part, budgets));
  if (result.fit) out.push(...printPackingFit(result.fit, budgets));
  if (result.perQuestion)
    out.push(
      '',
      ...textTable(
        ['conversation', 'category', 'budget', 'evidence', 'question'],
        result.perQuestion.map((q) => [
          q.conversation,
          categoryLabel(q.category),
          q.budget,
          round(q.recall),
          q.question,
        ]),
      ),
    );
  process.stdout.write(`${out.join('\n')}\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) await runMain(main);
