// Every job type's handler, for the server's worker and `sm jobs --run`.
import { consolidationJobHandlers } from './consolidate.ts';
import { digestJobHandlers } from './digests.ts';
import { embeddingJobHandlers } from './embed.ts';
import { extractionJobHandlers } from './ingest.ts';
import { nerJobHandlers } from './ner.ts';
import type { Runtime } from './runtime.ts';
import type { JobHandlers } from '../jobs/worker.ts';

export const jobHandlers = (runtime: Runtime): JobHandlers => ({
  ...extractionJobHandlers(runtime),
  ...consolidationJobHandlers(runtime),
  ...digestJobHandlers(runtime),
  ...nerJobHandlers(runtime),
  ...embeddingJobHandlers(runtime),
});
