// The conversations the quality benchmarks run on, whatever the data set: a LoCoMo json file
// (two friends chatting; both speakers go in as the user role, named) or a BEAM chat folder (a
// user and an assistant, each message with its role). Paths are given on the command line.
import { statSync } from 'node:fs';
import { loadBeam } from './beam-data.ts';
import { loadLocomo, type LocomoConversation } from './locomo-data.ts';
import type { BenchConversation } from './bench-conversation.ts';

export type { BenchConversation, BenchQuestion, BenchSession, BenchTurn } from './bench-conversation.ts';

export function fromLocomo(conversation: LocomoConversation): BenchConversation {
  return {
    name: conversation.name,
    dataset: 'locomo',
    sessions: conversation.sessions.map((s) => ({
      index: s.index,
      at: s.at,
      turns: s.turns.map((t) => ({ id: t.diaId, role: 'user', name: t.speaker, text: t.text, at: t.at })),
    })),
    // Adversarial questions (category 5) ask about what was never said: not a retrieval question.
    questions: conversation.questions
      .filter((q) => q.category !== 5)
      .map((q) => ({ text: q.question, category: String(q.category), evidence: q.evidence })),
  };
}

/** The conversations at a path: a BEAM chat folder, or a LoCoMo file (one conversation or the data set's array). */
export function loadBenchData(path: string): BenchConversation[] {
  let folder = false;
  try {
    folder = statSync(path).isDirectory();
  } catch {
    throw new Error(`${path}: no such file or folder`);
  }
  return folder ? [loadBeam(path)] : loadLocomo(path).map(fromLocomo);
}
