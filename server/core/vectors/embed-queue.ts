// Embedding is durable background work (docs/architecture.md#jobs): the write that creates a turn or memory queues a
// job in its own transaction, and the worker embeds after the commit. Nothing is queued while
// vectors are off, so stores without an embedding model pay nothing.
//
// The local word vectors (semantic.ts) are queued differently: computing one costs less than
// queueing a job for it, so the turns are embedded by one catch-up job that works through every
// turn past a mark kept in meta (a backfill of the history, the first time, is the same job). A
// write queues it only when none of this process's is pending: a primary-key read per turn.
import { enqueueJob, JobType } from '../jobs/jobs.ts';
import type { Space } from '../kernel/space.ts';
import type { Store } from '../kernel/store.ts';
import { isLocalModel } from './word-table.ts';
import { vectorState, vectorsReady } from './vector-state.ts';

export type EmbedPayload = { turnIds?: number[]; memoryIds?: number[]; userId?: string; catchUp?: boolean };

export async function enqueueEmbedding(store: Store, space: Space, payload: EmbedPayload) {
  if (!vectorsReady(store)) return;
  if (localVectors(store)) {
    // Memories are not embedded with word vectors: only turns are ranked by them.
    if (payload.turnIds?.length) await queueCatchUp(store);
    return;
  }
  if (!payload.turnIds?.length && !payload.memoryIds?.length) return;
  await enqueueJob(store, JobType.Embed, { ...payload, userId: space.userId });
}

/** True when the vectors on are the local word vectors (embedded by the catch-up). */
export function localVectors(store: Store): boolean {
  const state = vectorState(store);
  return state.ready && isLocalModel(state.spec.model);
}

const CATCH_UP_PENDING = "select 1 from jobs where id = ? and status = 'pending'";
/** The catch-up job this process queued last, by store. */
const queued = new WeakMap<Store, number>();

/**
 * Queues the catch-up unless one is pending: this process's last one (a primary-key read), or,
 * the first time, any (another process may have queued it).
 */
export async function queueCatchUp(store: Store) {
  const last = queued.get(store);
  if (last !== undefined && (await store.sql.pluck(CATCH_UP_PENDING, [last]))) return;
  // A pending catch-up of any process: its payload's catchUp flag.
  const anyCatchUp = store.dialect.statements.jobs.anyCatchUp;
  const any = last === undefined && (await store.sql.pluck<number>(anyCatchUp, [JobType.Embed]));
  queued.set(store, any || (await enqueueJob(store, JobType.Embed, { catchUp: true })).id);
}

const MARK_KEY = 'embedding.words_to';

/** The last turn id the catch-up embedded for `model` (0 before any, or after a change of model). */
export async function catchUpMark(store: Store, model: string): Promise<number> {
  const row = await store.sql.pluck<string>('select value from meta where key = ?', [MARK_KEY]);
  const mark = row === undefined ? null : (JSON.parse(row) as { model: string; to: number });
  return mark && mark.model === model ? mark.to : 0;
}

export async function setCatchUpMark(store: Store, model: string, to: number) {
  await store.sql.run(
    'insert into meta (key, value) values (?, ?) on conflict (key) do update set value = excluded.value',
    [MARK_KEY, JSON.stringify({ model, to })],
  );
}
