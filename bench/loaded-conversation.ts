// One benchmark conversation loaded into a store of its own, through the path users use
// (ingestTurn, heuristic extraction, roles and speaker names, session dates), with its questions:
// what bench:locomo, bench:fit and bench:context ask. With an embedding endpoint, the turns are
// embedded by the embed jobs and each question through the same path a server uses (searchMemory).
import { DEFAULT_SPACE, type Space } from '../server/core/kernel/space.ts';
import { ErrorCode, type SmError } from '../server/core/kernel/errors.ts';
import type { Store } from '../server/core/kernel/store.ts';
import { search, type SearchInput, type SearchOptions } from '../server/core/search/index.ts';
import { drainJobs } from '../server/jobs/worker.ts';
import { ingestTurn } from '../server/services/ingest.ts';
import { jobHandlers } from '../server/services/job-handlers.ts';
import { createRuntime, type Runtime } from '../server/services/runtime.ts';
import { searchMemory } from '../server/services/search.ts';
import { openStore } from '../server/storage/sqlite/open.ts';
import type { BenchConversation } from './bench-data.ts';
import { build } from './scale-store.ts';
import { rng } from './synthetic.ts';

export type Question = { text: string; category: string; evidence: number[] };
/** `unasked`: questions with no evidence turn, by category; `refused`: turns the store would not take. */
export type Loaded = {
  name: string;
  dataset: BenchConversation['dataset'];
  store: Store;
  runtime: Runtime;
  space: Space;
  questions: Question[];
  unasked: Record<string, number>;
  refused: number;
  turns: { id: number; speaker: string; text: string; at: number }[];
};
/** An embedding endpoint to rank with (config embedding.endpoint, model, dimensions). */
export type BenchEmbedding = { endpoint: string; model: string; dimensions: number };

/** The flags that name an embedding endpoint (bench:locomo, bench:fit), for parseArgs. */
export const EMBEDDING_FLAGS = {
  'embedding-endpoint': { type: 'string' },
  'embedding-model': { type: 'string' },
  'embedding-dimensions': { type: 'string', default: '256' },
} as const;
export const EMBEDDING_USAGE = '[--embedding-endpoint URL --embedding-model NAME [--embedding-dimensions N]]';

/** The endpoint the flags name (none without them), or the problem with them, naming the flag. */
export function embeddingOf(values: {
  'embedding-endpoint'?: string;
  'embedding-model'?: string;
  'embedding-dimensions'?: string;
}): { embedding?: BenchEmbedding; problem?: string } {
  const endpoint = values['embedding-endpoint'];
  const model = values['embedding-model'];
  const dimensions = Number(values['embedding-dimensions'] ?? 256);
  if (endpoint !== undefined && !URL.canParse(endpoint))
    return { problem: '--embedding-endpoint: a URL (http://host:port/v1)' };
  if ((endpoint === undefined) !== (model === undefined))
    return { problem: '--embedding-endpoint and --embedding-model go together' };
  if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > 4096)
    return { problem: '--embedding-dimensions: 1 to 4096' };
  return { embedding: endpoint && model ? { endpoint, model, dimensions } : undefined };
}

/** Search as the benchmarks ask it: with an embedding model, the question embedded as a server embeds it. */
export const searchLoaded = (loaded: Loaded, input: SearchInput, options: SearchOptions = {}) =>
  loaded.runtime.embedder && !loaded.runtime.embedder.local
    ? searchMemory(loaded.runtime, loaded.space, input, options)
    : search(loaded.store, loaded.space, input, options);

/**
 * One conversation in a store of its own. With `crowd`, that many synthetic turns of another user
 * share the file (bench/scale.ts), and the conversation is a user of its own: its searches take
 * the small-user path (space token, ranked by BM25 over its own rows) instead of the whole file's.
 */
export async function loadConversation(
  conversation: BenchConversation,
  crowd = 0,
  embedding?: BenchEmbedding,
): Promise<Loaded> {
  // BENCH_SEMANTIC=1 turns the local word vectors on (embedding.local; off by default, see docs/memory.md#word-vectors);
  // BENCH_STANDING_SHARE sets context.standing_share (the standing sections' share of the budget).
  const share = process.env.BENCH_STANDING_SHARE
    ? { context: { standing_share: Number(process.env.BENCH_STANDING_SHARE) } }
    : {};
  const store = await openStore({
    path: ':memory:',
    env: {},
    config: {
      extractor: { mode: 'heuristic' },
      embedding: { local: process.env.BENCH_SEMANTIC === '1', ...embedding },
      ...share,
    },
  });
  const runtime = await createRuntime(store, embedding ? process.env : {});
  // The word vectors, converted into the cache folder by the first run that finds none.
  await runtime.semantic?.settled;
  const space: Space = crowd > 0 ? { userId: 'locomo', agentId: null } : DEFAULT_SPACE;
  if (crowd > 0) build(store, crowd, rng(7));
  const turnIds = new Map<string, number>();
  const turns: Loaded['turns'] = [];
  let refused = 0;
  for (const session of conversation.sessions) {
    for (const turn of session.turns) {
      const at = turn.at;
      store.clock = { now: () => at };
      try {
        const { turn: row } = await ingestTurn(runtime, space, {
          sessionId: `${conversation.name}:${session.index}`,
          role: turn.role,
          name: turn.name,
          text: turn.text,
          at,
        });
        turnIds.set(turn.id, row.id);
        turns.push({ id: row.id, speaker: turn.name ?? turn.role, text: row.text, at: row.at });
      } catch (error) {
        // A turn the store refuses (too long) stays evidence that cannot be found: counted, not hidden.
        if ((error as SmError).code !== ErrorCode.BadUserInput) throw error;
        refused++;
        turnIds.set(turn.id, -refused);
      }
    }
  }
  // The server's worker runs the background jobs the writes queued (accurate NER, consolidation).
  if (process.env.BENCH_DRAIN !== '0') await drainJobs(store, jobHandlers(runtime));
  // After ingestion the clock moves on: questions are asked later, as in real use.
  const last = Math.max(...conversation.sessions.map((s) => s.turns.at(-1)?.at ?? s.at)) + 86_400_000;
  store.clock = { now: () => last };
  const questions: Question[] = [];
  const unasked: Record<string, number> = {};
  for (const q of conversation.questions) {
    // Evidence ids that name no turn (a few typos in LoCoMo) cannot be retrieved: dropped.
    const evidence = [
      ...new Set(q.evidence.map((id) => turnIds.get(id)).filter((id): id is number => id !== undefined)),
    ];
    if (evidence.length === 0) unasked[q.category] = (unasked[q.category] ?? 0) + 1;
    else questions.push({ text: q.text, category: q.category, evidence });
  }
  return {
    name: conversation.name,
    dataset: conversation.dataset,
    store,
    runtime,
    space,
    questions,
    unasked,
    refused,
    turns,
  };
}
