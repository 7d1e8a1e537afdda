// NER wiring for the running service: the optional LLM provider built from the runtime, the
// handler of the accurate-NER job queued by addTurn, and enrichment on demand (the scheduler
// calls the same function at 02:00).
import { JobType } from '../core/jobs.ts';
import { runEnrichment, type EnrichmentOptions, type EnrichmentReport } from '../core/ner/enrichment.ts';
import { runAccurateNer } from '../core/ner/link.ts';
import type { NerExtras } from '../core/ner/pipeline.ts';
import type { JobHandlers } from '../jobs/worker.ts';
import { llmNerProvider } from '../llm/ner.ts';
import type { Enricher } from './maintenance.ts';
import type { Runtime } from './runtime.ts';

const extrasByRuntime = new WeakMap<Runtime, NerExtras>();

/** The providers that need the network, built once per runtime (none without an LLM). */
export function nerExtras(runtime: Runtime): NerExtras {
  let extras = extrasByRuntime.get(runtime);
  if (!extras) {
    extras = { llm: runtime.llm ? llmNerProvider(runtime.llm) : null };
    extrasByRuntime.set(runtime, extras);
  }
  return extras;
}

export const nerJobHandlers = (runtime: Runtime): JobHandlers => ({
  // A failing LLM does not fail the job: its results are simply missing (the other providers' stay).
  [JobType.NerAccurate]: async (_store, job) => {
    await runAccurateNer(runtime.store, Number(job.payload.turnId), nerExtras(runtime));
  },
});

/** Seed 004 execute_entity_enrichment, with this runtime's providers. */
export function enrichEntities(runtime: Runtime, options: EnrichmentOptions = {}): Promise<EnrichmentReport> {
  return runEnrichment(runtime.store, nerExtras(runtime), options);
}

/** The same, in the shape runMaintenance / the scheduler take (`enrich` task). */
export const nerEnricher: Enricher = async (runtime) => {
  const report = await enrichEntities(runtime);
  const failures = report.failures.map((f) => `${f.provider} failed ${f.count}x (${f.error})`).join('; ');
  return {
    skipped: report.skipped !== null,
    reason: report.skipped ?? `${report.memories.candidates} memories and ${report.turns.candidates} turns with few entities${failures ? `; ${failures}` : ''}`,
    memories: report.memories.enriched,
    turns: report.turns.enriched,
    links: report.memories.links + report.turns.links,
  };
};
