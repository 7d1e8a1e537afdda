// Retrieval counts as access (docs/architecture.md#reinforcement): access_count + 1, last_accessed_at, and the forgetting curve
// restarts. It is recorded just after the read, not inside it: a read must neither pay for a
// write nor wait for the write lock (another process, an `sm` command on the same file, may hold
// it for seconds). Accesses are batched per store and written on the next tick without waiting
// for the lock; while the lock is busy they stay queued and are retried. closeStore writes
// whatever is left.
import { AsyncResource } from 'node:async_hooks';
import { logger } from '../../logger.ts';
import { write, writeIfFree, type Store } from '../kernel/store.ts';

type Counts = Map<number, { n: number; at: number }>;
/** `flushing`: the write under way (settled when none is), which a waiting flush lets finish first. */
type Pending = { counts: Counts; scheduled: boolean; retryMs: number; flushing: Promise<unknown> };

const pendingByStore = new WeakMap<Store, Pending>();
const FIRST_RETRY_MS = 200;
const MAX_RETRY_MS = 5_000;

// One statement per distinct (count, time) of a batch, which is mostly one: reads noted on one
// tick share the clock's time and count once each.
const FLUSH = `update memories set access_count = access_count + ?,
    last_accessed_at = case when last_accessed_at > ? then last_accessed_at else ? end, confidence = confidence_base
  where id in (select value from sm_ids(?))`;

/**
 * Schedules outside the caller's async context: a read noted inside a write would otherwise hand
 * that write's scope to the timer, and the flush would think it runs in a transaction long over.
 */
const detached = AsyncResource.bind((run: () => void, delayMs: number | null) => {
  if (delayMs === null) setImmediate(run);
  else setTimeout(run, delayMs).unref();
});

/** How long accesses may wait, while reads are under way in the server's read workers, to be written with theirs. */
const HOLD_MS = 20;
const holds = new WeakMap<Store, { busy: () => boolean; ms: number }>();

/**
 * While `busy()` (reads under way in read workers: server/services/read-pool.ts), accesses wait
 * up to HOLD_MS and are written together: under load each read was otherwise a write
 * transaction of its own, ~15 % of the main thread's CPU per search the workers answered. With
 * nothing else under way they are written on the next tick as before, so a client's next request
 * sees them. `null` ends the hold.
 */
export function holdAccessWhile(store: Store, busy: (() => boolean) | null, holdMs = HOLD_MS) {
  if (busy) holds.set(store, { busy, ms: holdMs });
  else holds.delete(store);
}

/** Queues an access to each memory; written on the next tick (or with others' while reads are under way: holdAccessWhile). */
export function noteAccess(store: Store, ids: Iterable<number>) {
  let pending = pendingByStore.get(store);
  if (!pending)
    pendingByStore.set(
      store,
      (pending = { counts: new Map(), scheduled: false, retryMs: FIRST_RETRY_MS, flushing: Promise.resolve() }),
    );
  const at = store.clock.now();
  for (const id of ids) add(pending.counts, id, 1, at);
  if (pending.counts.size > 0 && !pending.scheduled) {
    pending.scheduled = true;
    const hold = holds.get(store);
    detached(() => void flushLater(store, pending), hold?.busy() ? hold.ms : null);
  }
}

function add(counts: Counts, id: number, n: number, at: number) {
  const seen = counts.get(id);
  counts.set(id, { n: (seen?.n ?? 0) + n, at: Math.max(seen?.at ?? at, at) });
}

async function flushLater(store: Store, pending: Pending) {
  pending.scheduled = false;
  if (!store.sql.open || pending.counts.size === 0) return;
  const batch = pending.counts.size;
  let written: boolean;
  try {
    written = await flushAccess(store, { wait: false });
  } catch (error) {
    // Not worth failing anything for (a read-only file, say): said once per batch, then dropped.
    logger.warn({ err: (error as Error).message, memories: batch }, 'could not record memory access');
    return;
  }
  if (written) {
    pending.retryMs = FIRST_RETRY_MS;
    return;
  }
  if (pending.scheduled) return; // accesses noted meanwhile already scheduled a flush
  pending.scheduled = true;
  detached(() => void flushLater(store, pending), pending.retryMs);
  pending.retryMs = Math.min(pending.retryMs * 2, MAX_RETRY_MS);
}

/**
 * Writes the queued accesses in one transaction. `wait: false` gives up at once if another
 * connection holds the write lock (resolves false, the accesses stay queued); closeStore waits,
 * for a flush under way too.
 * On any other error the batch is dropped and the error thrown.
 */
export async function flushAccess(store: Store, options: { wait: boolean } = { wait: true }): Promise<boolean> {
  const pending = pendingByStore.get(store);
  if (!pending) return true;
  // The next tick's flush may be writing (over the network on Postgres): closeStore lets it
  // finish before it closes the store.
  if (options.wait) await pending.flushing;
  if (pending.counts.size === 0 || !store.sql.open) return true;
  // The batch leaves the queue before the write: accesses noted while it runs wait for the next.
  const batch = pending.counts;
  pending.counts = new Map();
  const groups = new Map<string, { n: number; at: number; ids: number[] }>();
  for (const [id, { n, at }] of batch) {
    const key = `${n} ${at}`;
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { n, at, ids: [] }));
    group.ids.push(id);
  }
  const update = async () => {
    for (const { n, at, ids } of groups.values()) await store.sql.run(FLUSH, [n, at, at, JSON.stringify(ids)]);
    return true;
  };
  const writing = options.wait ? write(store, update) : writeIfFree(store, update);
  pending.flushing = writing.catch(() => undefined);
  const done = await writing;
  if (done !== undefined) return true;
  for (const [id, { n, at }] of batch) add(pending.counts, id, n, at);
  return false;
}
