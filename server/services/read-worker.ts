// A read worker (read-pool.ts starts it): the domain's own search and getContext on a read-only
// connection to the writer's file, one request at a time. A read writes nothing here: what it
// handed out is counted as accessed by the service that asked, on the main thread, the one writer.
// The clock, the config and the vector state are the main thread's, sent with each request, so
// the answer is the one the main thread would have computed.
import { parentPort, workerData } from 'node:worker_threads';
import type { Config } from '../core/kernel/config.ts';
import { contextOfParsed } from '../core/context/context.ts';
import { expectedOf } from '../core/kernel/errors.ts';
import { searchFiltered } from '../core/search/search.ts';
import { setIndexBudget } from '../core/vectors/vector-index.ts';
import { setVectorState, type VectorState } from '../core/vectors/vector-state.ts';
import { openReadOnlyStore } from '../storage/sqlite/open.ts';
import type { ReadReply, ReadRequest, ReadWorkerData } from './read-protocol.ts';

const data = workerData as ReadWorkerData;
let now = Date.now();
let mapped = false;

const store = openReadOnlyStore({
  path: data.path,
  config: data.config,
  clock: { now: () => now },
  cacheKiB: data.cacheKiB,
});
// Per-user vector indexes are this thread's own copy: a smaller budget than the writer's.
setIndexBudget(data.indexBudgetBytes);

function vectorsAs(state: VectorState) {
  setVectorState(store, state);
  // As initVectors does on the writer's connection: the rerank reads vectors all over the table.
  if (state.ready && !mapped) {
    store.sqlite.pragma(`mmap_size = ${2 ** 30}`);
    mapped = true;
  }
}

async function answer(request: ReadRequest): Promise<unknown> {
  now = request.now;
  if (request.config) store.config = request.config as Config;
  vectorsAs(request.vectors);
  if (request.kind === 'search')
    return searchFiltered(store, request.space, request.input, { queryVector: request.queryVector });
  return contextOfParsed(store, request.space, request.input, { queryVector: request.queryVector });
}

const port = parentPort!;
port.on('message', (request: ReadRequest) => {
  answer(request).then(
    (result) => port.postMessage({ id: request.id, result } satisfies ReadReply),
    (error: unknown) => {
      // An expected failure crosses with its code; anything else is masked by the API anyway.
      const expected = expectedOf(error);
      const message = expected?.message ?? (error instanceof Error ? error.message : String(error));
      port.postMessage({
        id: request.id,
        error: { message, code: expected?.code, retryAfterSeconds: expected?.retryAfterSeconds },
      } satisfies ReadReply);
    },
  );
});
port.postMessage({ ready: true } satisfies ReadReply);
