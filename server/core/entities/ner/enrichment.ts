// Entity enrichment (nightly at 02:00 and on demand):
// memories and turns that no accurate pass has seen (enriched_at unset) and that link few
// entities are re-read with the `accurate` strategy, linked, and stamped.
import { z } from 'zod';
import type { Store } from '../../kernel/store.ts';
import { parseInput } from '../../kernel/validation.ts';
import { enrichTargets, type EnrichOutcome, type EnrichTarget } from './link.ts';
import { accurateNerAvailability, type NerExtras } from './pipeline.ts';

export type EnrichmentReport = {
  /** Why nothing ran (no accurate provider), or null. */
  skipped: string | null;
  memories: { candidates: number; enriched: number; links: number };
  turns: { candidates: number; enriched: number; links: number };
  /** Providers that failed on some text (an LLM timeout...): the others' results were kept. */
  failures: { provider: string; error: string; count: number }[];
  ms: number;
};

const CHUNK = 25;

export const enrichmentOptionsSchema = z.object({
  limit: z.number().int().positive().max(10_000).optional(),
  maxEntities: z.number().int().nonnegative().max(1_000).optional(),
});
export type EnrichmentOptions = z.input<typeof enrichmentOptionsSchema>;

/** Active memories with no enriched_at and at most `max` linked entities, oldest first. */
async function memoryCandidates(store: Store, max: number, limit: number): Promise<EnrichTarget[]> {
  const rows = await store.sql.all<{ id: number; text: string; userId: string }>(
    `select id, content as text, user_id as userId from memories m
     where m.enriched_at is null and m.status = 'active'
       and (select count(*) from memory_entities me where me.memory_id = m.id) <= ?
     order by m.id limit ?`,
    [max, limit],
  );
  return rows.map((r) => ({ kind: 'memory', ...r }));
}

async function turnCandidates(store: Store, max: number, limit: number): Promise<EnrichTarget[]> {
  const rows = await store.sql.all<{ id: number; text: string; name: string | null; userId: string }>(
    `select id, text, name, user_id as userId from turns t
     where t.enriched_at is null
       and (select count(*) from turn_entities te where te.turn_id = t.id) <= ?
     order by t.id limit ?`,
    [max, limit],
  );
  return rows.map((r) => ({ kind: 'turn', ...r }));
}

function summarise(failures: EnrichOutcome['failures']): EnrichmentReport['failures'] {
  const byKey = new Map<string, EnrichmentReport['failures'][number]>();
  for (const f of failures) {
    const key = `${f.provider}\u0000${f.error}`;
    const entry = byKey.get(key);
    if (entry) entry.count++;
    else byKey.set(key, { ...f, count: 1 });
  }
  return [...byKey.values()];
}

/**
 * Runs one enrichment pass: up to `ner.enrich_limit` memories and as many turns, each linked
 * to at most `ner.enrich_max_entities` entities so far. Skipped, with the reason, when no
 * accurate provider is enabled. Idempotent: stamped rows are not picked again.
 */
export async function runEnrichment(
  store: Store,
  extras: NerExtras = {},
  options: EnrichmentOptions = {},
): Promise<EnrichmentReport> {
  const parsed = parseInput(enrichmentOptionsSchema, options);
  const started = performance.now();
  const report: EnrichmentReport = {
    skipped: null,
    memories: { candidates: 0, enriched: 0, links: 0 },
    turns: { candidates: 0, enriched: 0, links: 0 },
    failures: [],
    ms: 0,
  };
  const availability = accurateNerAvailability(store.config, extras);
  if (!availability.available) {
    report.skipped = availability.reason;
    return report;
  }
  const limit = parsed.limit ?? store.config.ner.enrich_limit;
  const max = parsed.maxEntities ?? store.config.ner.enrich_max_entities;
  const failures: EnrichOutcome['failures'] = [];
  const memoryTargets = await memoryCandidates(store, max, limit);
  const turnTargets = await turnCandidates(store, max, limit);
  for (const [kind, targets] of [
    ['memories', memoryTargets],
    ['turns', turnTargets],
  ] as const) {
    report[kind].candidates = targets.length;
    if (targets.length === 0) continue;
    // In chunks: each is one short write, and a crash loses at most one chunk's work.
    for (let i = 0; i < targets.length; i += CHUNK) {
      const outcome = await enrichTargets(store, targets.slice(i, i + CHUNK), extras);
      report[kind].enriched += outcome.enriched;
      report[kind].links += outcome.links;
      failures.push(...outcome.failures);
    }
  }
  report.failures = summarise(failures);
  report.ms = Math.round(performance.now() - started);
  return report;
}
