// Retrieval counts as access (D6): access_count + 1, last_accessed_at, and the forgetting curve
// restarts. It is recorded just after the read, not inside it: a read must neither pay for a
// write nor wait for the write lock (another process, an `sm` command on the same file, may hold
// it for seconds). Accesses are batched per store and written on the next tick without waiting
// for the lock; while the lock is busy they stay queued and are retried. closeStore writes
// whatever is left.
import { logger } from '../logger.ts';
import { prepared, type Store } from './store.ts';

type Pending = { counts: Map<number, { n: number; at: number }>; scheduled: boolean; retryMs: number };

const pendingByStore = new WeakMap<Store, Pending>();
const FIRST_RETRY_MS = 200;
const MAX_RETRY_MS = 5_000;

/** Queues an access to each memory; written on the next tick. */
export function noteAccess(store: Store, ids: Iterable<number>) {
  let pending = pendingByStore.get(store);
  if (!pending) pendingByStore.set(store, (pending = { counts: new Map(), scheduled: false, retryMs: FIRST_RETRY_MS }));
  const at = store.clock.now();
  for (const id of ids) {
    const seen = pending.counts.get(id);
    pending.counts.set(id, { n: (seen?.n ?? 0) + 1, at: Math.max(seen?.at ?? at, at) });
  }
  if (pending.counts.size > 0 && !pending.scheduled) {
    pending.scheduled = true;
    setImmediate(() => flushLater(store, pending));
  }
}

function flushLater(store: Store, pending: Pending) {
  pending.scheduled = false;
  if (!store.sqlite.open || pending.counts.size === 0) return;
  let written: boolean;
  try {
    written = flushAccess(store, { wait: false });
  } catch (error) {
    // Not worth failing anything for (a read-only file, say): said once per batch, then dropped.
    logger.warn({ err: (error as Error).message, memories: pending.counts.size }, 'could not record memory access');
    pending.counts.clear();
    return;
  }
  if (written) {
    pending.retryMs = FIRST_RETRY_MS;
    return;
  }
  pending.scheduled = true;
  setTimeout(() => flushLater(store, pending), pending.retryMs).unref();
  pending.retryMs = Math.min(pending.retryMs * 2, MAX_RETRY_MS);
}

/**
 * Writes the queued accesses in one statement. `wait: false` gives up at once if another
 * connection holds the write lock (returns false, the accesses stay queued); closeStore waits.
 */
export function flushAccess(store: Store, options: { wait: boolean } = { wait: true }): boolean {
  const pending = pendingByStore.get(store);
  if (!pending || pending.counts.size === 0 || !store.sqlite.open) return true;
  const rows = JSON.stringify([...pending.counts].map(([id, { n, at }]) => [id, n, at]));
  const timeout = store.sqlite.pragma('busy_timeout', { simple: true }) as number;
  if (!options.wait) store.sqlite.pragma('busy_timeout = 0');
  try {
    prepared(store, 'access.flush', () =>
      store.sqlite.prepare(
        `update memories set access_count = access_count + a.n, last_accessed_at = max(coalesce(last_accessed_at, 0), a.at), confidence = confidence_base
         from (select value ->> '$[0]' as id, value ->> '$[1]' as n, value ->> '$[2]' as at from json_each(?)) a
         where memories.id = a.id`,
      ),
    ).run(rows);
    pending.counts.clear();
    return true;
  } catch (error) {
    if ((error as { code?: string }).code?.startsWith('SQLITE_BUSY')) return false;
    throw error;
  } finally {
    if (!options.wait) store.sqlite.pragma(`busy_timeout = ${timeout}`);
  }
}
