// Reads across cores: worker threads (read-worker.ts), each with a read-only connection to the
// server's SQLite file, answer search and context while the main thread keeps the one writer
// (and the HTTP, GraphQL and job work). One request per worker at a time; more wait in a bounded
// queue, and past it (or before any worker is up, or after one died under a request) the read
// runs on the main thread as it always did. Postgres has connections of its own: no pool there.
// The workers start with the first read and end after IDLE_MS without one: an idle server holds
// no copies of the search code, caches and page cache (about 25 MB a worker).
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { holdAccessWhile } from '../core/memory/access.ts';
import { SmError, type ErrorCode } from '../core/kernel/errors.ts';
import { semanticOn } from '../core/vectors/semantic.ts';
import { vectorState } from '../core/vectors/vector-state.ts';
import type { Store } from '../core/kernel/store.ts';
import { logger } from '../logger.ts';
import type { ReadCall, ReadReply, ReadRequest, ReadWorkerData } from './read-protocol.ts';
import { afterWorkerStart } from '../young-generation.ts';

/** Requests waiting per worker before reads run on the main thread instead. */
const QUEUE_PER_WORKER = 32;
/** Each worker's SQLite page cache (KiB) and vector index budget: a worker is a copy of both. */
const CACHE_KIB = 8 * 1024;
const INDEX_BUDGET_BYTES = 32 * 2 ** 20;
/** A worker that dies before it is ready this many times in a row is not started again. */
const MAX_FAILED_STARTS = 3;
/** How long the workers stay after the last read. */
const IDLE_MS = 30_000;
/**
 * A read a worker has not answered by then is taken as stuck (a loop, a lock it never gets):
 * the worker is ended and replaced, and the read answered on the main thread, never left hanging.
 */
const READ_TIMEOUT_MS = 30_000;

/** Below this many cores, no workers unless configured: measured on 2 cores, one worker gave 1.00-1.15x the requests/s for 20-50 MB more RSS. */
const MIN_CORES = 4;

/** Workers when `server.read_workers` is unset: from 4 cores, one per core beyond the first (the writer's), at most 4. */
export function readWorkerCount(configured: number | undefined, cores = availableParallelism()): number {
  return configured ?? (cores < MIN_CORES ? 0 : Math.min(4, cores - 1));
}

/** A worker died under the request: the caller runs it again on the main thread. */
export class ReadWorkerLost extends Error {}

export type ReadPoolStats = {
  /** Workers configured. */
  size: number;
  /** Workers started and answering. */
  ready: number;
  /** Workers answering a request now. */
  busy: number;
  queued: number;
  /** Requests answered by a worker. */
  served: number;
  /** Requests the pool handed back to the main thread (a lone read, no worker up, the queue full, a worker lost). */
  inProcess: number;
  /** Workers started again after one ended. */
  restarts: number;
};

type Answer = { result: unknown };
type Job = { call: ReadCall; resolve: (answer: Answer) => void; reject: (error: Error) => void };
type Slot = {
  worker: Worker;
  ready: boolean;
  job: Job | null;
  configVersion: number;
  id: number;
  retired: boolean;
  timer?: NodeJS.Timeout;
  stuck?: boolean;
};

export type ReadPool = {
  /** The call answered by a worker, or null when the main thread should answer it (see the header). */
  run(call: ReadCall): Promise<Answer> | null;
  /** Whether a read now would be the only request under way, with no worker busy (see ReadPoolOptions.alone). */
  lone(): boolean;
  /** Counts a read the caller ran on the main thread after all. */
  ranInProcess(): void;
  stats(): ReadPoolStats;
  /** Ends worker `index` as a crash would (tests): its request is lost, a new worker takes its place. */
  crash(index: number): Promise<void>;
  stop(): Promise<void>;
};

/** How a worker thread is started: the module from the CLI bundle, or the TypeScript source through tsx. */
function workerEntry(): { source: string | URL; eval: boolean; tsx?: string } {
  const here = import.meta.url;
  if (!here.endsWith('.ts')) return { source: new URL('./read-worker.mjs', here), eval: false };
  const api = createRequire(here).resolve('tsx/esm/api');
  return {
    source: new URL('./read-worker.ts', here).href,
    eval: true,
    tsx: pathToFileURL(join(dirname(api), 'index.mjs')).href,
  };
}

// Under tsx the worker registers tsx's loader in itself before importing the TypeScript entry
// (hooks registered on the main thread do not reach workers).
const BOOT = `
const { workerData } = require('node:worker_threads');
import(workerData.tsx).then((api) => { api.register(); return import(workerData.entry); }).catch((error) => { console.error(error); process.exit(1); });
`;

export type ReadPoolOptions = {
  /**
   * Whether the read asked for now is the only request the server is handling: then it runs on
   * the main thread, which is idle otherwise, and saves the hop to a worker and back (two thread
   * wake-ups: ~1 ms of latency and CPU on a 2-core VM). Workers take reads once they overlap.
   */
  alone?: () => boolean;
  /** How long a worker may take over one read (READ_TIMEOUT_MS; tests shorten it). */
  readTimeoutMs?: number;
};

/** Starts `size` read workers on the store's file; null where there can be none (Postgres, in memory, size 0). */
export function startReadPool(store: Store, size: number, options: ReadPoolOptions = {}): ReadPool | null {
  const path = store.sql.dialect === 'sqlite' ? store.sqlite.name : ':memory:';
  if (size <= 0 || path === ':memory:' || path === '') return null;
  return new WorkerPool({ store, path, size, options });
}

/** The workers, their requests and the queue before them (see the header). */
class WorkerPool implements ReadPool {
  private readonly store: Store;
  private readonly path: string;
  private readonly size: number;
  private readonly options: ReadPoolOptions;
  private readonly entry = workerEntry();
  private readonly timeoutMs: number;
  private readonly slots: (Slot | null)[];
  private readonly queue: Job[] = [];
  private readonly counts = { served: 0, inProcess: 0, restarts: 0 };
  private failedStarts = 0;
  private gaveUp = false;
  private nextId = 0;
  private stopped = false;
  private idle: NodeJS.Timeout | undefined;
  // The config goes to a worker with its first request after a change (setConfig swaps sections in place).
  private configText = '';
  private configVersion = 0;

  constructor(init: { store: Store; path: string; size: number; options: ReadPoolOptions }) {
    this.store = init.store;
    this.path = init.path;
    this.size = init.size;
    this.options = init.options;
    this.timeoutMs = init.options.readTimeoutMs ?? READ_TIMEOUT_MS;
    this.slots = Array.from({ length: init.size }, () => null);
    // Accesses of reads answered meanwhile are written together (core/memory/access.ts).
    holdAccessWhile(this.store, () => this.queue.length > 0 || this.slots.some((s) => s?.job));
  }

  run(call: ReadCall): Promise<Answer> | null {
    // The local word vectors are a table of the main thread's (hundreds of MB): not copied per worker.
    if (this.stopped || this.gaveUp || semanticOn(this.store)) return null;
    clearTimeout(this.idle);
    // The first read since the start or a quiet spell that is not alone starts the workers; it,
    // and those that come while they load (about 0.3 s from the CLI bundle), run on the main thread.
    if (this.slots.every((s) => s === null)) {
      for (let i = 0; i < this.size; i++) this.start(i);
      return null;
    }
    const ready = this.slots.filter((s): s is Slot => s?.ready === true);
    if (ready.length === 0 || this.queue.length >= QUEUE_PER_WORKER * ready.length) return null;
    const text = JSON.stringify(this.store.config);
    if (text !== this.configText) {
      this.configText = text;
      this.configVersion++;
    }
    return new Promise<Answer>((resolve, reject) => {
      this.queue.push({ call, resolve, reject });
      this.pump();
    });
  }

  lone(): boolean {
    return Boolean(this.options.alone?.()) && this.queue.length === 0 && this.slots.every((s) => !s?.job);
  }

  ranInProcess(): void {
    this.counts.inProcess++;
  }

  stats(): ReadPoolStats {
    const live = this.slots.filter((s): s is Slot => s !== null);
    return {
      size: this.size,
      ready: live.filter((s) => s.ready).length,
      busy: live.filter((s) => s.job).length,
      queued: this.queue.length,
      ...this.counts,
    };
  }

  async crash(index: number): Promise<void> {
    const slot = this.slots[index];
    if (slot) await slot.worker.terminate();
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    holdAccessWhile(this.store, null);
    clearTimeout(this.idle);
    for (const job of this.queue.splice(0)) job.reject(new ReadWorkerLost('the server is stopping'));
    await Promise.all(this.slots.map((slot) => slot?.worker.terminate()));
  }

  private start(index: number): void {
    const data: ReadWorkerData = {
      path: this.path,
      config: this.store.config,
      cacheKiB: CACHE_KIB,
      indexBudgetBytes: INDEX_BUDGET_BYTES,
    };
    const { entry } = this;
    const worker = new Worker(entry.eval ? BOOT : entry.source, {
      eval: entry.eval,
      workerData: entry.eval ? { ...data, tsx: entry.tsx, entry: entry.source } : data,
      // A small young generation keeps each worker's memory down; a runaway read ends the worker
      // (its request runs again on the main thread), never the server.
      resourceLimits: { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 8 },
      stderr: false,
    });
    afterWorkerStart(worker);
    const slot: Slot = { worker, ready: false, job: null, configVersion: 0, id: this.nextId++, retired: false };
    this.slots[index] = slot;
    worker.on('message', (reply: ReadReply) => this.answered(slot, reply));
    let ended = false;
    const end = (why: string) => {
      if (ended) return;
      ended = true;
      this.ended(index, slot, why);
    };
    worker.on('error', (error) => end(`failed: ${error.message}`));
    worker.on('exit', (code) => end(`exited (${code})`));
  }

  /** A worker's message: it is ready, or it answered its request. */
  private answered(slot: Slot, reply: ReadReply): void {
    if ('ready' in reply) {
      slot.ready = true;
      this.failedStarts = 0;
      this.pump();
      return;
    }
    const job = slot.job;
    slot.job = null;
    clearTimeout(slot.timer);
    if (job) {
      if (reply.error) job.reject(rebuild(reply.error));
      else {
        this.counts.served++;
        job.resolve({ result: reply.result });
      }
    }
    this.pump();
  }

  /** A worker ended (once per worker): its request is lost, and another takes its place unless it keeps failing to start. */
  private ended(index: number, slot: Slot, reason: string): void {
    clearTimeout(slot.timer);
    const why = slot.stuck ? `took over ${this.timeoutMs} ms on one read` : reason;
    if (this.slots[index] === slot) this.slots[index] = null;
    slot.job?.reject(new ReadWorkerLost(`read worker ${slot.id} ${why}`));
    slot.job = null;
    if (this.stopped || slot.retired) return;
    if (!slot.ready && ++this.failedStarts >= MAX_FAILED_STARTS) {
      if (!this.gaveUp)
        logger.error({ why }, 'read workers could not start: search and context run on the main thread');
      this.gaveUp = true;
      this.giveUpIfNone();
      return;
    }
    logger.warn({ worker: slot.id, why }, 'a read worker ended: starting another');
    this.counts.restarts++;
    this.start(index);
  }

  /** No worker left to start: what waits runs on the main thread. */
  private giveUpIfNone(): void {
    if (this.slots.some((s) => s !== null)) return;
    for (const job of this.queue.splice(0)) job.reject(new ReadWorkerLost('no read worker is running'));
  }

  private pump(): void {
    for (const slot of this.slots) {
      if (this.queue.length === 0) break;
      if (slot?.ready && !slot.job) this.send(slot, this.queue.shift()!);
    }
    if (this.queue.length === 0 && this.slots.every((s) => !s?.job)) {
      clearTimeout(this.idle);
      this.idle = setTimeout(() => this.retire(), IDLE_MS).unref();
    }
  }

  /** Ends the workers after a quiet spell (the next read starts them again). */
  private retire(): void {
    if (this.queue.length > 0 || this.slots.some((s) => s?.job)) return;
    this.slots.forEach((slot, i) => {
      if (!slot) return;
      slot.retired = true;
      this.slots[i] = null;
      void slot.worker.terminate();
    });
  }

  private send(slot: Slot, job: Job): void {
    slot.job = job;
    slot.timer = setTimeout(() => {
      slot.stuck = true;
      void slot.worker.terminate();
    }, this.timeoutMs);
    slot.timer.unref();
    const store = this.store;
    const request: ReadRequest = { ...job.call, id: slot.id, now: store.clock.now(), vectors: vectorState(store) };
    if (slot.configVersion !== this.configVersion) {
      request.config = store.config;
      slot.configVersion = this.configVersion;
    }
    slot.worker.postMessage(request);
  }
}

/** The worker's error as the main thread would have thrown it: an expected failure keeps its code. */
function rebuild(error: { message: string; code?: string; retryAfterSeconds?: number }): Error {
  return error.code
    ? new SmError(error.code as ErrorCode, error.message, error.retryAfterSeconds)
    : new Error(error.message);
}

/**
 * A read through the pool when it can take it; undefined when it is the caller's to run
 * in-process (no pool, none free, a worker lost).
 */
export async function readInWorker<T>(pool: ReadPool | null | undefined, call: ReadCall): Promise<T | undefined> {
  if (!pool) return undefined;
  if (pool.lone()) {
    // Requests read from their sockets in the same pass as this one have not reached the server's
    // handler yet: after one turn of the event loop they have, and this read is no longer alone.
    await new Promise((resolve) => setImmediate(resolve));
    if (pool.lone()) {
      pool.ranInProcess();
      return undefined;
    }
  }
  const pending = pool.run(call);
  if (!pending) {
    pool.ranInProcess();
    return undefined;
  }
  try {
    return (await pending).result as T;
  } catch (error) {
    if (!(error instanceof ReadWorkerLost)) throw error;
    // Reads write nothing: running one again is safe, and the client never sees the crash.
    logger.warn({ err: error.message }, 'a read worker was lost under a request: answering it on the main thread');
    pool.ranInProcess();
    return undefined;
  }
}
