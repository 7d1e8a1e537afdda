// NER wiring for the running service: the optional LLM provider built from the runtime and
// compromise in its thread, the handlers of the accurate-NER jobs queued by addTurn (in batches)
// and of the catch-up after cheap mode, and enrichment on demand (the scheduler calls the same
// function at 02:00).
import { JobType } from '../core/jobs/jobs.ts';
import { nextDeferredTurns, queueCatchUp } from '../core/entities/ner/deferral.ts';
import { runEnrichment, type EnrichmentOptions, type EnrichmentReport } from '../core/entities/ner/enrichment.ts';
import { runAccurateNer } from '../core/entities/ner/link.ts';
import type { NerExtras } from '../core/entities/ner/pipeline.ts';
import type { JobHandlers } from '../jobs/worker.ts';
import { llmNerProvider } from '../llm/ner.ts';
import type { Enricher } from './maintenance.ts';
import { compromiseInThread } from './ner-thread.ts';
import type { Runtime } from './runtime.ts';

/** Turns per accurate-NER run: one compromise parse of about 100-200 ms in its thread, and one write. */
export const NER_BATCH = 100;

const extrasByRuntime = new WeakMap<Runtime, NerExtras>();

/** The providers that need the network, built once per runtime (none without an LLM). */
export function nerExtras(runtime: Runtime): NerExtras {
  let extras = extrasByRuntime.get(runtime);
  if (!extras) {
    extras = { llm: runtime.llm ? llmNerProvider(runtime.llm) : null, compromise: compromiseInThread };
    extrasByRuntime.set(runtime, extras);
  }
  return extras;
}

export const nerJobHandlers = (runtime: Runtime): JobHandlers => ({
  // A failing LLM does not fail the job: its results are simply missing (the other providers' stay).
  [JobType.NerAccurate]: {
    batch: NER_BATCH,
    run: async (store, jobs) => {
      await runAccurateNer(
        store,
        jobs.map((job) => Number(job.payload.turnId)),
        nerExtras(runtime),
      );
      await queueCatchUp(store);
    },
  },
  [JobType.NerCatchUp]: async (store) => {
    const turnIds = await nextDeferredTurns(store, NER_BATCH);
    if (turnIds.length === 0) return;
    await runAccurateNer(store, turnIds, nerExtras(runtime));
    await queueCatchUp(store);
  },
});

/** Entity enrichment (nightly and on demand), with this runtime's providers. */
export function enrichEntities(runtime: Runtime, options: EnrichmentOptions = {}): Promise<EnrichmentReport> {
  return runEnrichment(runtime.store, nerExtras(runtime), options);
}

/** The same, in the shape runMaintenance / the scheduler take (`enrich` task). */
export const nerEnricher: Enricher = async (runtime) => {
  const report = await enrichEntities(runtime);
  const failures = report.failures.map((f) => `${f.provider} failed ${f.count}x (${f.error})`).join('; ');
  return {
    skipped: report.skipped !== null,
    reason:
      report.skipped ??
      `${report.memories.candidates} memories and ${report.turns.candidates} turns with few entities${failures ? `; ${failures}` : ''}`,
    memories: report.memories.enriched,
    turns: report.turns.enriched,
    links: report.memories.links + report.turns.links,
  };
};
