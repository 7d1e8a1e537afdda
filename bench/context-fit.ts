// bench:context --fit: the packing values (server/core/context/context-pack.ts) fitted by
// coordinate ascent on mean evidence over the budgets, each conversation packed with values
// fitted on the others (leave one conversation out).
import {
  CHAT_PACK_TUNING,
  DEFAULT_PACK_TUNING,
  pack,
  type Candidate,
  type PackTuning,
  type Packed,
} from '../server/core/context/context-pack.ts';
import { covered, score } from './context-score.ts';
import { round } from './stats.ts';

export type FitQuestion = {
  /** A chat with an assistant: packed (and fitted) with the chat values. */
  chat: boolean;
  conversation: string;
  dataset: string;
  category: string;
  evidence: number[];
  candidates: Candidate[];
};

// Reflections and superseded facts are rare in LoCoMo (no weekly reflection runs while it loads),
// so their weights keep their defaults; the fill tier only matters when query hits run out.
const GRID: Partial<Record<keyof PackTuning, number[]>> = {
  decay: [0.5, 1, 1.5, 2, 3],
  offset: [0, 1, 2, 4, 8],
  fact: [0, 0.25, 0.5, 1, 1.5],
  projected: [0, 0.25, 0.5, 1, 1.5, 2],
  factAfterTurn: [0, 0.1, 0.25, 0.5],
  turnAfterFact: [0, 0.1, 0.25, 0.5, 0.75],
  length: [0.25, 0.5, 0.75, 1],
};

/** Mean evidence over the questions and budgets (a group's questions: one kind of conversation). */
function recallOf(questions: FitQuestion[], budgets: number[], tuning: PackTuning): number {
  let sum = 0;
  for (const q of questions)
    for (const budget of budgets) {
      const { items } = pack(q.candidates, budget, tuning);
      sum += score(q.evidence, covered(items.map((p: Packed) => p.candidate))).recall;
    }
  return sum / Math.max(1, questions.length * budgets.length);
}

function fit(questions: FitQuestion[], budgets: number[], start: PackTuning): PackTuning {
  const t = { ...start };
  let best = recallOf(questions, budgets, t);
  for (let pass = 0; pass < 2; pass++) {
    let improved = false;
    for (const key of Object.keys(GRID) as (keyof PackTuning)[]) {
      let bestValue = t[key];
      for (const value of GRID[key]!) {
        if (value === bestValue) continue;
        const r = recallOf(questions, budgets, { ...t, [key]: value });
        if (r > best + 1e-9) (best = r), (bestValue = value), (improved = true);
      }
      t[key] = bestValue;
    }
    if (!improved) break;
  }
  return t;
}

/**
 * Each group (chats with an assistant, conversations between people) fitted on its own questions,
 * from its current values: every conversation packed with values fitted on the others of its group.
 */
export function fitPacking(questions: FitQuestion[], budgets: number[]) {
  const perBudget = (set: FitQuestion[], tuning: PackTuning) =>
    Object.fromEntries(budgets.map((b) => [String(b), round(recallOf(set, [b], tuning))]));
  const groups = [true, false].flatMap((chat) => {
    const set = questions.filter((q) => q.chat === chat);
    if (set.length === 0) return [];
    const start = chat ? CHAT_PACK_TUNING : DEFAULT_PACK_TUNING;
    const names = [...new Set(set.map((q) => q.conversation))];
    const conversations = names.map((name) => {
      const held = set.filter((q) => q.conversation === name);
      const tuning = fit(
        set.filter((q) => q.conversation !== name),
        budgets,
        start,
      );
      return {
        name,
        questions: held.length,
        current: perBudget(held, start),
        heldOut: perBudget(held, tuning),
        tuning,
      };
    });
    const pooled = Object.fromEntries(
      budgets.map((b) => [
        String(b),
        round(conversations.reduce((s, c) => s + c.heldOut[String(b)]! * c.questions, 0) / set.length),
      ]),
    );
    const fitted = fit(set, budgets, start);
    return [
      {
        group: chat ? 'chats with an assistant' : 'conversations between people',
        conversations,
        current: perBudget(set, start),
        heldOut: pooled,
        fitted: { recall: perBudget(set, fitted), tuning: fitted },
      },
    ];
  });
  return { groups, conversations: groups.flatMap((g) => g.conversations) };
}

/** The fit's lines: each conversation's evidence with the current values and with values fitted on the others of its group. */
export function printPackingFit(f: ReturnType<typeof fitPacking>, budgets: number[]): string[] {
  const r = (x: Record<string, number>) => budgets.map((b) => x[String(b)]).join(' / ');
  return f.groups.flatMap((g) => [
    '',
    `packing values fitted for ${g.group}, evidence at ${budgets.join(' / ')}: current values vs left out of the fit`,
    ...g.conversations.map((c) => `${c.name.padEnd(12)}  ${r(c.current)}   ${r(c.heldOut)}`),
    `${'all'.padEnd(12)}  ${r(g.current)}   ${r(g.heldOut)}`,
    `fitted on all: ${r(g.fitted.recall)}  ${JSON.stringify(g.fitted.tuning)}`,
  ]);
}
