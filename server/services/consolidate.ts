// Consolidating a finished session: idempotent, pages of 30 turns, LLM extraction when
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
} from '../core/extraction/consolidation.ts';
import { queueSessionSummary } from '../core/digests/summaries.ts';
import { notFound } from '../core/kernel/errors.ts';
import { applyLlmActions, subjectOf } from '../core/extraction/extract-turn.ts';
import { relatedFacts } from '../core/extraction/save-facts.ts';
import { recordExtraction } from '../core/extraction/stats.ts';
import { JobType } from '../core/jobs/jobs.ts';
import { getSession } from '../core/turns/sessions.ts';
import { spaceOf, spaceOfRow, type Space } from '../core/kernel/space.ts';
import { write } from '../core/kernel/store.ts';
import type { TurnRow } from '../core/turns/turns.ts';
import type { JobHandlers } from '../jobs/worker.ts';
import { describeLlmError } from '../llm/client.ts';
import { llmExtractPage } from '../llm/extract.ts';
import type { Runtime } from './runtime.ts';

async function llmPage(runtime: Runtime, space: Space, page: TurnRow[]) {
  const { store, llm } = runtime;
  const started = performance.now();
  try {
    const text = page.map((t) => `${subjectOf(t)} ${t.text}`).join(' ');
    const { actions, usage } = await llmExtractPage(llm!, {
      turns: page.map((t) => ({ id: t.id, speaker: t.name ?? t.role, text: t.text })),
      related: await relatedFacts(store, space, text, 20),
    });
    return await write(store, async () => {
      // A page said to one agent makes that agent's facts; a mixed page makes shared ones.
      const oneAgent = page.every((t) => t.agentId === page[0]!.agentId);
      const results = await applyLlmActions(store, oneAgent ? spaceOfRow(page[0]!) : space, actions, page);
      await recordExtraction(store, 'llm', {
        ok: true,
        ms: performance.now() - started,
        facts: results.length,
        ...usage,
      });
      return results;
    });
  } catch (error) {
    await write(store, () =>
      recordExtraction(store, 'llm', {
        ok: false,
        ms: performance.now() - started,
        facts: 0,
        error: describeLlmError(error),
      }),
    );
    return null;
  }
}

/** Consolidates one of the user's sessions (the space's agent does not narrow it: a session is the user's). */
export async function consolidateSession(
  runtime: Runtime,
  space: Space,
  sessionId: string,
): Promise<ConsolidationReport> {
  const { store, llm } = runtime;
  const user: Space = { userId: space.userId, agentId: null };
  if (!(await getSession(store, user, sessionId))) throw notFound('session', sessionId);
  const report = emptyReport(user.userId, sessionId);
  if (await isConsolidated(store, user, sessionId))
    return { ...report, status: 'skipped', detail: 'already consolidated' };
  publishConsolidation(store, user, sessionId, 'STARTED');
  try {
    const paths = new Set<string>();
    for (
      let page = await turnPage(store, user, sessionId, null);
      page.length > 0;
      page = await turnPage(store, user, sessionId, page.at(-1)!)
    ) {
      report.pages++;
      report.turns += page.length;
      let results = llm ? await llmPage(runtime, user, page) : null;
      paths.add(results ? 'llm' : 'heuristic');
      results ??= await consolidatePageHeuristically(store, page);
      tally(report, results);
    }
    report.detail = [...paths].join('+') || 'heuristic';
    // With a model, the session's digest is also summarised, in the background (services/digests.ts).
    await write(store, async () => {
      await markConsolidated(store, user, sessionId);
      if (llm) await queueSessionSummary(store, user, sessionId);
    });
    publishConsolidation(store, user, sessionId, 'COMPLETED', { report });
    return report;
  } catch (error) {
    publishConsolidation(store, user, sessionId, 'FAILED', {
      reason: error instanceof Error ? error.message : String(error),
    });
    throw error;
  }
}

export const consolidationJobHandlers = (runtime: Runtime): JobHandlers => ({
  [JobType.Consolidate]: async (_store, job) => {
    // Jobs queued before spaces carry no user: theirs is `default`.
    await consolidateSession(
      runtime,
      spaceOf(job.userId ?? (job.payload.userId as string | undefined)),
      String(job.payload.sessionId),
    );
  },
});
