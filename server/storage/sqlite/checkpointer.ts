// WAL checkpoints on a thread of their own, for long-running processes (the server). SQLite
// otherwise checkpoints inside the commit that pushes the WAL past wal_autocheckpoint pages:
// copying the pages back is cheap, but the two fsyncs it needs stall that one addTurn for
// ~10 ms, every few dozen turns. Here a second connection runs PASSIVE checkpoints (they never
// block the writer) on a timer, and the main connection's own threshold is raised to a safety net
// for when this thread falls behind. A checkpoint that caught up lets the next write restart the
// WAL from its beginning, so the file stays small.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { afterWorkerStart } from '../../young-generation.ts';

/** How often the thread checkpoints; a pass with nothing to copy costs microseconds. */
const INTERVAL_MS = 100;
/** The main connection's own threshold while the thread runs (pages: 40 MB at 4 KiB). */
const SAFETY_NET_PAGES = 10_000;
const DEFAULT_PAGES = 1000;

// CommonJS, evaluated in the worker; the driver path comes from the main thread, so this works
// under tsx, in the CLI bundle and in tests alike.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const done = new Int32Array(workerData.done);
const db = new Database(workerData.path, { fileMustExist: true });
// Both statements stay referenced (by the timer and the stop handler) for the thread's life: on
// Node 24 a collected better-sqlite3 object can abort the process (native-handles.ts).
const synchronous = db.prepare('pragma synchronous = NORMAL');
synchronous.run();
const checkpoint = db.prepare('pragma wal_checkpoint(PASSIVE)');
const timer = setInterval(() => {
  try { checkpoint.get(); } catch {} // busy or locked: the next pass catches up
}, workerData.intervalMs);
parentPort.once('message', () => {
  clearInterval(timer);
  try { db.close(); void synchronous; } finally { Atomics.store(done, 0, 1); Atomics.notify(done, 0); }
});
`;

export type Checkpointer = { stop(): void };

/** Starts checkpointing `path` (a WAL database the caller has open as `sqlite`) on a worker thread. */
export function startCheckpointer(sqlite: { pragma(source: string): unknown }, path: string): Checkpointer {
  const done = new SharedArrayBuffer(4);
  const worker = new Worker(WORKER, {
    eval: true,
    workerData: {
      driver: createRequire(import.meta.url).resolve('better-sqlite3'),
      path,
      done,
      intervalMs: INTERVAL_MS,
    },
  });
  afterWorkerStart(worker);
  worker.unref();
  // A thread that fails (file gone, driver error) leaves checkpoints to the main connection.
  worker.on('error', () => {
    try {
      sqlite.pragma(`wal_autocheckpoint = ${DEFAULT_PAGES}`);
    } catch {
      // the store was closed meanwhile
    }
  });
  sqlite.pragma(`wal_autocheckpoint = ${SAFETY_NET_PAGES}`);
  let stopped = false;
  return {
    /** Synchronous: the thread's connection is closed when this returns (or after 2 s at worst). */
    stop() {
      if (stopped) return;
      stopped = true;
      sqlite.pragma(`wal_autocheckpoint = ${DEFAULT_PAGES}`);
      worker.postMessage('stop');
      Atomics.wait(new Int32Array(done), 0, 0, 2000);
      void worker.terminate();
    },
  };
}
