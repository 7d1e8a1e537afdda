// Embedding is durable background work (D10): the write that creates a turn or memory queues a
// job in its own transaction, and the worker embeds after the commit. Nothing is queued while
// vectors are off, so stores without an embedding model pay nothing.
import { enqueueJob, JobType } from '../jobs.ts';
import type { Space } from '../space.ts';
import type { Store } from '../store.ts';
import { vectorsReady } from './vector-state.ts';

export type EmbedPayload = { turnIds?: number[]; memoryIds?: number[] };

export function enqueueEmbedding(store: Store, space: Space, payload: EmbedPayload) {
  if (!vectorsReady(store)) return;
  if (!payload.turnIds?.length && !payload.memoryIds?.length) return;
  enqueueJob(store, JobType.Embed, { ...payload, userId: space.userId });
}
