// Adding a turn, the product's hot path. heuristic and hybrid modes commit the turn and its
// heuristic facts in one transaction with no network call (hybrid queues LLM augmentation as a
// durable job). llm mode commits the turn first, then waits for the LLM within llm.timeout_s and
// falls back to heuristics on any failure; a recovery job covers a crash in between.
import { pendingSessions, queueConsolidation } from '../core/consolidation.ts';
import { extractHeuristically, applyLlmActions, subjectOf } from '../core/extraction/extract-turn.ts';
import { relatedFacts, type Extracted } from '../core/extraction/save-facts.ts';
import { recordExtraction } from '../core/extraction/stats.ts';
import { assertQueueRoom, completeJob, enqueueJob, JobType, type JobRow } from '../core/jobs.ts';
import { enqueueEmbedding } from '../core/search/embed-queue.ts';
import { linkMemoriesFast, linkTurnFast } from '../core/ner/link.ts';
import { spaceOfRow, type Space } from '../core/space.ts';
import { write, type Store } from '../core/store.ts';
import { addTurn, getTurn, type AddTurnInput, type TurnRow } from '../core/turns.ts';
import { describeLlmError } from '../llm/client.ts';
import { llmExtract } from '../llm/extract.ts';
import type { Runtime } from './runtime.ts';
import type { JobHandlers } from '../jobs/worker.ts';
import { nerExtras } from './ner.ts';

export type IngestResult = { turn: TurnRow; extracted: Extracted[] };

const createdMemories = (extracted: Extracted[]) => extracted.filter((e) => e.action === 'created').map((e) => e.memory);

function heuristicPass(store: Store, turn: TurnRow, path: 'heuristic' | 'fallback' = 'heuristic'): Extracted[] {
  const started = performance.now();
  const extracted = extractHeuristically(store, turn);
  linkMemoriesFast(store, spaceOfRow(turn), createdMemories(extracted), turn);
  recordExtraction(store, path, { ok: true, ms: performance.now() - started, facts: extracted.length });
  return extracted;
}

/** One LLM extraction for a stored turn; throws on any failure after recording it. */
async function llmPass(runtime: Runtime, turn: TurnRow, path: 'llm' | 'hybrid'): Promise<Extracted[]> {
  const { store, llm } = runtime;
  const started = performance.now();
  try {
    const space = spaceOfRow(turn);
    const { actions, usage } = await llmExtract(llm!, { speaker: subjectOf(turn), text: turn.text, related: relatedFacts(store, space, `${subjectOf(turn)} ${turn.text}`) });
    return write(store, () => {
      const extracted = applyLlmActions(store, space, actions, [turn]);
      linkMemoriesFast(store, space, createdMemories(extracted), turn);
      recordExtraction(store, path, { ok: true, ms: performance.now() - started, facts: extracted.length, ...usage });
      return extracted;
    });
  } catch (error) {
    write(store, () => recordExtraction(store, path, { ok: false, ms: performance.now() - started, facts: 0, error: describeLlmError(error) }));
    throw error;
  }
}

/** Stores a turn in `space` and learns from it (see the header). */
export async function ingestTurn(runtime: Runtime, space: Space, input: AddTurnInput): Promise<IngestResult> {
  const { store, llm } = runtime;
  const mode = store.config.extractor.mode;
  // Past worker.max_queue, refused before anything is written (back-pressure, HTTP 503).
  assertQueueRoom(store);
  const { turn, extra } = addTurn(store, space, input, (tx, turn, options) => {
    // A new conversation means the user's earlier ones are finished (seed 004): consolidate them.
    if (options.newSession) queueConsolidation(tx, space, pendingSessions(tx, space, { exclude: turn.sessionId }));
    // Fast NER (regex, known names, the speaker) for every turn; the accurate pass is queued.
    linkTurnFast(tx, turn, nerExtras(runtime));
    // Vectors are computed by a job after the commit, never here (no network in the hot path).
    enqueueEmbedding(tx, space, { turnIds: [turn.id] });
    if (!options.autoExtract || turn.role !== 'user') return { extracted: [] as Extracted[], recovery: null };
    if (mode === 'llm' && llm) {
      // Runs only if this process dies before the inline extraction below settles it.
      const recovery = enqueueJob(tx, JobType.ExtractLlm, { turnId: turn.id, userId: turn.userId, fallback: true }, { runAt: tx.clock.now() + store.config.llm.timeout_s * 1000 + 60_000 });
      return { extracted: [] as Extracted[], recovery };
    }
    const extracted = heuristicPass(tx, turn);
    if (mode === 'hybrid' && llm) enqueueJob(tx, JobType.ExtractLlm, { turnId: turn.id, userId: turn.userId });
    return { extracted, recovery: null };
  });
  if (!extra?.recovery) return { turn, extracted: extra?.extracted ?? [] };
  let extracted: Extracted[];
  try {
    extracted = await llmPass(runtime, turn, 'llm');
  } catch {
    extracted = write(store, () => heuristicPass(store, turn, 'fallback'));
  }
  completeJob(store, extra.recovery.id);
  return { turn, extracted };
}

async function runExtractJob(runtime: Runtime, job: JobRow) {
  const turn = getTurn(runtime.store, Number(job.payload.turnId));
  if (!turn) return; // forgotten since: nothing left to extract
  if (!runtime.llm) throw new Error('no LLM configured');
  if (!job.payload.fallback) {
    await llmPass(runtime, turn, 'hybrid');
    return;
  }
  try {
    await llmPass(runtime, turn, 'llm');
  } catch {
    write(runtime.store, () => heuristicPass(runtime.store, turn, 'fallback'));
  }
}

export const extractionJobHandlers = (runtime: Runtime): JobHandlers => ({
  [JobType.ExtractLlm]: (_store, job) => runExtractJob(runtime, job),
});
