// The one place a read counts as access (docs/architecture.md#reinforcement): search and context
// answer here, in a read worker or in this process, and what they handed out is noted on this
// thread, the one writer, just after the read.
import { noteAccess } from '../core/memory/access.ts';
import type { Runtime } from './runtime.ts';
import { readInWorker } from './read-pool.ts';
import type { ReadCall } from './read-protocol.ts';

export type ReadPlan<T> = {
  /** The call for a read worker; null keeps the read in this process. */
  call: ReadCall | null;
  inProcess: () => Promise<T>;
  /** The memories the answer hands out. */
  accessed: (result: T) => Iterable<number>;
};

export async function answerRead<T>(runtime: Runtime, plan: ReadPlan<T>): Promise<T> {
  const answered = plan.call ? await readInWorker<T>(runtime.reads, plan.call) : undefined;
  const result = answered ?? (await plan.inProcess());
  noteAccess(runtime.store, plan.accessed(result));
  return result;
}
