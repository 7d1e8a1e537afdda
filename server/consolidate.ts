// Consolidating a finished session (seed 004): idempotent, pages of 30 turns, LLM extraction when
// configured (a failing page falls back to heuristics), two-level dedupe and conflicts through
// saveFacts, then the session is marked. STARTED / COMPLETED / FAILED go out as change events.
import {
  consolidatePageHeuristically,
  emptyReport,
  isConsolidated,
  markConsolidated,
  publishConsolidation,
  tally,
  turnPage,
  type ConsolidationReport,
} from './core/consolidation.ts';
import { notFound } from './core/errors.ts';
import { applyLlmActions, subjectOf } from './core/extraction/extract-turn.ts';
import { relatedFacts } from './core/extraction/save-facts.ts';
import { recordExtraction } from './core/extraction/stats.ts';
import { JobType } from './core/jobs.ts';
import { getSession } from './core/sessions.ts';
import { write } from './core/store.ts';
import type { TurnRow } from './core/turns.ts';
import type { JobHandlers } from './jobs/worker.ts';
import { describeLlmError } from './llm/client.ts';
import { llmExtractPage } from './llm/extract.ts';
import type { Runtime } from './runtime.ts';

async function llmPage(runtime: Runtime, page: TurnRow[]) {
  const { store, llm } = runtime;
  const started = performance.now();
  try {
    const text = page.map((t) => `${subjectOf(t)} ${t.text}`).join(' ');
    const { actions, usage } = await llmExtractPage(llm!, {
      turns: page.map((t) => ({ id: t.id, speaker: t.name ?? t.role, text: t.text })),
      related: relatedFacts(store, text, 20),
    });
    return write(store, () => {
      const results = applyLlmActions(store, actions, page);
      recordExtraction(store, 'llm', { ok: true, ms: performance.now() - started, facts: results.length, ...usage });
      return results;
    });
  } catch (error) {
    write(store, () => recordExtraction(store, 'llm', { ok: false, ms: performance.now() - started, facts: 0, error: describeLlmError(error) }));
    return null;
  }
}

export async function consolidateSession(runtime: Runtime, sessionId: string): Promise<ConsolidationReport> {
  const { store, llm } = runtime;
  if (!getSession(store, sessionId)) throw notFound('session', sessionId);
  const report = emptyReport(sessionId);
  if (isConsolidated(store, sessionId)) return { ...report, status: 'skipped', detail: 'already consolidated' };
  publishConsolidation(store, sessionId, 'STARTED');
  try {
    const paths = new Set<string>();
    for (let page = turnPage(store, sessionId, null); page.length > 0; page = turnPage(store, sessionId, page.at(-1)!)) {
      report.pages++;
      report.turns += page.length;
      let results = llm ? await llmPage(runtime, page) : null;
      paths.add(results ? 'llm' : 'heuristic');
      results ??= consolidatePageHeuristically(store, page);
      tally(report, results);
    }
    report.detail = [...paths].join('+') || 'heuristic';
    markConsolidated(store, sessionId);
    publishConsolidation(store, sessionId, 'COMPLETED', { report });
    return report;
  } catch (error) {
    publishConsolidation(store, sessionId, 'FAILED', { reason: error instanceof Error ? error.message : String(error) });
    throw error;
  }
}

export const consolidationJobHandlers = (runtime: Runtime): JobHandlers => ({
  [JobType.Consolidate]: async (_store, job) => {
    await consolidateSession(runtime, String(job.payload.sessionId));
  },
});
