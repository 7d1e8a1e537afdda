// The messages between the read pool (read-pool.ts) and its workers (read-worker.ts).
import type { Config } from '../core/kernel/config.ts';
import type { ContextRequest } from '../core/context/context.ts';
import type { SearchFilter } from '../core/search/types.ts';
import type { VectorState } from '../core/vectors/vector-state.ts';
import type { Space } from '../core/kernel/space.ts';

export type ReadWorkerData = { path: string; config: Config; cacheKiB: number; indexBudgetBytes: number };

/** The reads a worker answers: the two hot ones, their input parsed already by the main thread. */
export type ReadCall =
  | { kind: 'search'; space: Space; input: SearchFilter; queryVector: Float32Array | null }
  | { kind: 'context'; space: Space; input: ContextRequest; queryVector: Float32Array | null };

export type ReadRequest = ReadCall & {
  id: number;
  /** The writer's clock at the request (scores decay with time). */
  now: number;
  vectors: VectorState;
  /** The writer's config, when it changed since this worker's last request. */
  config?: Config;
};

export type ReadReply =
  | { ready: true }
  | {
      id: number;
      result?: unknown;
      error?: { message: string; code?: string; retryAfterSeconds?: number };
    };
