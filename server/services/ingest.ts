// Adding a turn, the product's hot path. heuristic and hybrid modes commit the turn and its
// heuristic facts in one transaction with no network call (hybrid queues LLM augmentation as a
// durable job). llm mode commits the turn first, then waits for the LLM within llm.timeout_s and
// falls back to heuristics on any failure; a recovery job covers a crash in between.
import { pendingSessions, queueConsolidation } from '../core/extraction/consolidation.ts';
import { extractHeuristically, applyLlmActions, subjectOf } from '../core/extraction/extract-turn.ts';
import { relatedFacts, type Extracted } from '../core/extraction/save-facts.ts';
import { recordExtraction } from '../core/extraction/stats.ts';
import { assertQueueRoom, completeJob, enqueueJob, JobType, type JobRow } from '../core/jobs/jobs.ts';
import { enqueueEmbedding } from '../core/vectors/embed-queue.ts';
import type { EntityRow } from '../core/entities/entities.ts';
import { accurateNerJobNow, linkMemoriesFast, linkTurnFast } from '../core/entities/ner/link.ts';
import { spaceOfRow, type Space } from '../core/kernel/space.ts';
import { write, type Store } from '../core/kernel/store.ts';
import {
  addParsedTurn,
  addTurnSchema,
  getTurn,
  type AddTurnInput,
  type ParsedTurn,
  type TurnHook,
  type TurnRow,
} from '../core/turns/turns.ts';
import { parseInput } from '../core/kernel/validation.ts';
import { describeLlmError } from '../llm/client.ts';
import { llmExtract } from '../llm/extract.ts';
import type { Runtime } from './runtime.ts';
import type { JobHandlers } from '../jobs/worker.ts';
import { nerExtras } from './ner.ts';

/** `newSession`: the turn opened its session (addTurn knows it in the same transaction). */
export type IngestResult = { turn: TurnRow; newSession: boolean; extracted: Extracted[] };

const createdMemories = (extracted: Extracted[]) =>
  extracted.filter((e) => e.action === 'created').map((e) => e.memory);

/** `turnEntities`: what linkTurnFast linked to the turn, when it ran in this transaction. */
async function heuristicPass(
  store: Store,
  turn: TurnRow,
  path: 'heuristic' | 'fallback' = 'heuristic',
  turnEntities?: EntityRow[],
): Promise<Extracted[]> {
  const started = performance.now();
  const extracted = await extractHeuristically(store, turn);
  await linkMemoriesFast(store, spaceOfRow(turn), createdMemories(extracted), turn, turnEntities);
  await recordExtraction(store, path, { ok: true, ms: performance.now() - started, facts: extracted.length });
  return extracted;
}

/** One LLM extraction for a stored turn; throws on any failure after recording it. */
async function llmPass(runtime: Runtime, turn: TurnRow, path: 'llm' | 'hybrid'): Promise<Extracted[]> {
  const { store, llm } = runtime;
  const started = performance.now();
  try {
    const space = spaceOfRow(turn);
    const related = await relatedFacts(store, space, `${subjectOf(turn)} ${turn.text}`);
    const { actions, usage } = await llmExtract(llm!, { speaker: subjectOf(turn), text: turn.text, related });
    return await write(store, async () => {
      const extracted = await applyLlmActions(store, space, actions, [turn]);
      await linkMemoriesFast(store, space, createdMemories(extracted), turn);
      await recordExtraction(store, path, {
        ok: true,
        ms: performance.now() - started,
        facts: extracted.length,
        ...usage,
      });
      return extracted;
    });
  } catch (error) {
    await write(store, () =>
      recordExtraction(store, path, {
        ok: false,
        ms: performance.now() - started,
        facts: 0,
        error: describeLlmError(error),
      }),
    );
    throw error;
  }
}

/** What the transaction learned; `recovery`: llm mode's job, settled once the inline LLM pass is done. */
type InlineLearning = { extracted: Extracted[]; recovery: JobRow | null };

/**
 * What addTurn runs in its transaction: consolidation of finished sessions, fast NER, the
 * embedding job, and the extraction the mode calls for (none of it a network call).
 */
function learnInTransaction(runtime: Runtime, space: Space, nerQueued: boolean): TurnHook<InlineLearning> {
  const { store, llm } = runtime;
  const mode = store.config.extractor.mode;
  return async (tx, turn, options) => {
    // A new conversation means the user's earlier ones are finished: consolidate them.
    if (options.newSession)
      await queueConsolidation(tx, space, await pendingSessions(tx, space, { exclude: turn.sessionId }));
    // Fast NER (regex, known names, the speaker) for every turn; the accurate pass is queued.
    const turnEntities = await linkTurnFast(tx, turn, nerExtras(runtime), nerQueued, options.speaker);
    // Vectors are computed by a job after the commit, never here (no network in the hot path).
    await enqueueEmbedding(tx, space, { turnIds: [turn.id] });
    if (!options.autoExtract || (turn.role !== 'user' && turn.role !== 'assistant'))
      return { extracted: [] as Extracted[], recovery: null };
    // An assistant's turn teaches only what its heuristics recognise (decisions, restated user facts): no LLM pass.
    if (turn.role === 'assistant')
      return { extracted: await heuristicPass(tx, turn, 'heuristic', turnEntities), recovery: null };
    if (mode === 'llm' && llm) {
      // Runs only if this process dies before the inline extraction below settles it.
      const recovery = await enqueueJob(
        tx,
        JobType.ExtractLlm,
        { turnId: turn.id, userId: turn.userId, fallback: true },
        { runAt: tx.clock.now() + store.config.llm.timeout_s * 1000 + 60_000 },
      );
      return { extracted: [] as Extracted[], recovery };
    }
    const extracted = await heuristicPass(tx, turn, 'heuristic', turnEntities);
    if (mode === 'hybrid' && llm) await enqueueJob(tx, JobType.ExtractLlm, { turnId: turn.id, userId: turn.userId });
    return { extracted, recovery: null };
  };
}

/** Stores a turn in `space` and learns from it (see the header). Bad input is refused first. */
export function ingestTurn(runtime: Runtime, space: Space, input: AddTurnInput): Promise<IngestResult> {
  return ingestParsedTurn(runtime, space, parseInput(addTurnSchema, input));
}

/** ingestTurn of input its caller parsed with addTurnSchema already (GraphQL's `validate`): parsed once. */
export async function ingestParsedTurn(runtime: Runtime, space: Space, input: ParsedTurn): Promise<IngestResult> {
  const { store } = runtime;
  // Past worker.max_queue, refused before anything is written (back-pressure, HTTP 503).
  await assertQueueRoom(store);
  // The accurate-NER job, when due, goes in with the turn (one statement on Postgres).
  const nerQueued = await accurateNerJobNow(store, nerExtras(runtime));
  const { turn, newSession, extra } = await addParsedTurn(store, space, input, {
    afterInsert: learnInTransaction(runtime, space, nerQueued),
    job: nerQueued ? JobType.NerAccurate : undefined,
    readSpeaker: store.config.ner.enabled,
  });
  if (!extra?.recovery) return { turn, newSession, extracted: extra?.extracted ?? [] };
  let extracted: Extracted[];
  try {
    extracted = await llmPass(runtime, turn, 'llm');
  } catch {
    extracted = await write(store, () => heuristicPass(store, turn, 'fallback'));
  }
  await completeJob(store, extra.recovery.id);
  return { turn, newSession, extracted };
}

async function runExtractJob(runtime: Runtime, job: JobRow) {
  const turn = await getTurn(runtime.store, Number(job.payload.turnId));
  if (!turn) return; // forgotten since: nothing left to extract
  if (!runtime.llm) throw new Error('no LLM configured');
  if (!job.payload.fallback) {
    await llmPass(runtime, turn, 'hybrid');
    return;
  }
  try {
    await llmPass(runtime, turn, 'llm');
  } catch {
    await write(runtime.store, () => heuristicPass(runtime.store, turn, 'fallback'));
  }
}

export const extractionJobHandlers = (runtime: Runtime): JobHandlers => ({
  [JobType.ExtractLlm]: (_store, job) => runExtractJob(runtime, job),
});
