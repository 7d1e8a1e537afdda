// The main thread's young generation, kept at 4 MB semi-spaces in a long-running process. V8
// doubles it up to 16 MB semi-spaces (33.6 MB in all) for a program that allocates fast, as a
// busy server does, and a grown young generation stays resident: about 30 MB of the server's
// peak under bench:load. Its maximum is fixed when the process starts, but the factor it grows by
// is read at each growth: 2 lets it grow, 1 holds it where it is. So the factor is set after
// every collection, 2 below the cap and 1 at it. Held at its first size instead (1 MB
// semi-spaces), the server spent 25 % more CPU per turn in scavenges; at 4 MB, a few percent.
//
// V8 raises the factor back to 2 whenever it configures a new isolate's heap, that is whenever a
// worker thread starts: it is steered again once each worker runs.
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import type { Worker } from 'node:worker_threads';

/** Both semi-spaces of 4 MB. */
const CAP_BYTES = 8 * 1024 * 1024;

let observer: PerformanceObserver | undefined;

/** Set every time, not only when it changes: a worker's start may have changed it meanwhile. */
function steer() {
  const size = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;
  setFlagsFromString(`--semi-space-growth-factor=${size < CAP_BYTES ? 2 : 1}`);
}

/** From now on the young generation grows no further than 4 MB semi-spaces: a server calls it first thing. */
export function holdYoungGeneration() {
  if (observer) return;
  steer();
  // A collection is where the young generation grows: steered after each, before the next.
  observer = new PerformanceObserver(steer);
  observer.observe({ entryTypes: ['gc'] });
}

/** Call for every worker thread started: its start lets the young generation grow again. */
export function afterWorkerStart(worker: Worker) {
  if (!observer) return;
  worker.once('online', steer);
}
