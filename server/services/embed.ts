// Embeddings for the running service: the job that embeds new turns and memories after their
// write commits, the re-embed backfill (`sm reembed`), and the query's vector for search and context.
import { ErrorCode, SmError } from '../core/kernel/errors.ts';
import { JobType } from '../core/jobs/jobs.ts';
import { catchUpMark, setCatchUpMark, type EmbedPayload } from '../core/vectors/embed-queue.ts';
import {
  countVectors,
  hasVector,
  putVectors,
  resetVectors,
  vectorState,
  type VectorTable,
} from '../core/vectors/vectors.ts';
import { write, type Store } from '../core/kernel/store.ts';
import { describeLlmError } from '../llm/client.ts';
import type { Embedder } from '../llm/embeddings.ts';
import type { JobHandlers } from '../jobs/worker.ts';
import { logger } from '../logger.ts';
import type { Runtime } from './runtime.ts';

type Row = { table: VectorTable; id: number; userId: string; text: string };

/** What is embedded: a turn with its speaker ("Caroline: …", so "what did Caroline…" is near it), a memory's content. */
const ROWS: Record<VectorTable, string> = {
  turns:
    "select id, user_id as userId, coalesce(name || ': ', '') || text as text from turns where id in (select value from sm_ids(?))",
  memories:
    "select id, user_id as userId, content as text from memories where status = 'active' and id in (select value from sm_ids(?))",
};

async function readRows(store: Store, table: VectorTable, ids: number[]): Promise<Row[]> {
  if (ids.length === 0) return [];
  const rows = await store.sql.all<{ id: number; userId: string; text: string }>(ROWS[table], [JSON.stringify(ids)]);
  return rows.map((r) => ({ table, ...r }));
}

/** Embeds the rows in batches and stores their vectors. Rows deleted meanwhile, and texts with no vector, are skipped. */
async function embedRows(
  store: Store,
  embedder: Embedder,
  rows: Row[],
  after?: (last: Row) => Promise<void>,
): Promise<number> {
  let stored = 0;
  for (let start = 0; start < rows.length; start += embedder.batchSize) {
    const batch = rows.slice(start, start + embedder.batchSize);
    // Inputs are capped: a 100 KB turn would exceed most models' context; its start carries the topic.
    const vectors = await embedder.embed(batch.map((r) => r.text.slice(0, 8000)));
    await write(store, async () => {
      for (const table of ['turns', 'memories'] as const) {
        const items = batch.flatMap((r, i) => (r.table === table && vectors[i] ? [{ r, vector: vectors[i] }] : []));
        const alive = new Set(
          (
            await readRows(
              store,
              table,
              items.map(({ r }) => r.id),
            )
          ).map((r) => r.id),
        );
        await putVectors(
          store,
          table,
          items.filter(({ r }) => alive.has(r.id)).map(({ r, vector }) => ({ id: r.id, userId: r.userId, vector })),
        );
        stored += alive.size;
      }
      await after?.(batch.at(-1)!);
    });
  }
  return stored;
}

function requireEmbedder(runtime: Runtime): Embedder {
  if (!runtime.embedder) throw new Error('no embedding model configured (embedding.model)');
  const state = vectorState(runtime.store);
  if (!state.ready) throw new Error(state.reason);
  return runtime.embedder;
}

const TURNS_AFTER =
  "select id, user_id as userId, coalesce(name || ': ', '') || text as text from turns where id > ? order by id limit ?";

/**
 * The local word vectors' catch-up (core/vectors/embed-queue.ts): every turn past the mark, oldest first, a
 * batch per transaction, yielding between batches so requests are served meanwhile.
 */
async function catchUpTurns(store: Store, embedder: Embedder) {
  for (;;) {
    const next = await store.sql.all<Omit<Row, 'table'>>(TURNS_AFTER, [
      await catchUpMark(store, embedder.model),
      embedder.batchSize,
    ]);
    const rows = next.map((r) => ({ table: 'turns' as const, ...r }));
    if (rows.length === 0) return;
    // Another process may be catching up too: the mark only moves forward.
    await embedRows(store, embedder, rows, async (last) =>
      setCatchUpMark(store, embedder.model, Math.max(last.id, await catchUpMark(store, embedder.model))),
    );
    await new Promise((resolve) => setImmediate(resolve));
  }
}

export const embeddingJobHandlers = (runtime: Runtime): JobHandlers => ({
  [JobType.Embed]: async (store, job) => {
    const embedder = requireEmbedder(runtime);
    const payload = job.payload as EmbedPayload;
    // A catch-up queued under the local vectors is done by whatever embedder is on now: an
    // endpoint that took over embeds the turns queued by their own jobs instead.
    if (payload.catchUp) return embedder.local ? catchUpTurns(store, embedder) : undefined;
    const rows = [
      ...(await readRows(store, 'turns', payload.turnIds ?? [])),
      ...(await readRows(store, 'memories', payload.memoryIds ?? [])),
    ];
    await embedRows(store, embedder, rows);
  },
});

export type ReembedOptions = {
  /** Drop every stored vector and lock the configured model and size (after a model change). */
  reset?: boolean;
  /** Embed rows that already have a vector too. */
  all?: boolean;
  onProgress?: (done: number, total: number) => void;
};
export type ReembedReport = {
  /** Rows embedded by this pass. */
  turns: number;
  memories: number;
  /** Rows that have a vector now, this pass's and earlier ones. */
  storedTurns: number;
  storedMemories: number;
  dimensions: number;
  model: string;
};

/**
 * Backfills vectors for every turn and active memory that lacks one (all of them with `all` or
 * `reset`). Safe to re-run: it resumes where it stopped.
 */
export async function reembed(runtime: Runtime, options: ReembedOptions = {}): Promise<ReembedReport> {
  const { store } = runtime;
  if (!runtime.embedder)
    throw new SmError(ErrorCode.FailedPrecondition, 'no embedding model configured (set embedding.model, and its key)');
  const spec = { dimensions: runtime.embedder.dimensions, model: runtime.embedder.model };
  if (options.reset) await resetVectors(store, spec);
  const embedder = requireEmbedder(runtime);
  const pick = async (table: VectorTable, sql: string) => {
    const ids: number[] = [];
    for (const { id } of await store.sql.all<{ id: number }>(sql))
      if (options.all || options.reset || !(await hasVector(store, table, id))) ids.push(id);
    return ids;
  };
  const turnIds = await pick('turns', 'select id from turns order by id');
  // The local word vectors rank turns only (semantic.ts): memories are not embedded with them.
  const memoryIds = embedder.local
    ? []
    : await pick('memories', "select id from memories where status = 'active' order by id");
  const total = turnIds.length + memoryIds.length;
  let done = 0;
  const step = embedder.batchSize * 8;
  for (const [table, ids] of [
    ['turns', turnIds],
    ['memories', memoryIds],
  ] as const) {
    for (let start = 0; start < ids.length; start += step) {
      const slice = ids.slice(start, start + step);
      await embedRows(store, embedder, await readRows(store, table, slice));
      done += slice.length;
      options.onProgress?.(done, total);
    }
  }
  return {
    turns: turnIds.length,
    memories: memoryIds.length,
    storedTurns: await countVectors(store, 'turns'),
    storedMemories: await countVectors(store, 'memories'),
    ...spec,
  };
}

/**
 * The query's vector for search and context, when an embedding endpoint is configured and vectors
 * are on. A failure degrades to lexical + entity search: logged, never an error.
 */
export async function embedQuery(runtime: Runtime, text: string): Promise<Float32Array | null> {
  // The local word vectors embed the query in the core search itself (semantic.ts).
  if (!runtime.embedder || runtime.embedder.local || !vectorState(runtime.store).ready || !text.trim()) return null;
  try {
    return (await runtime.embedder.embed([text.slice(0, 8000)]))[0] ?? null;
  } catch (error) {
    logger.warn({ error: describeLlmError(error) }, 'query embedding failed: searching without vectors');
    return null;
  }
}
