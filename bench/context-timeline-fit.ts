// The timeline's constants (server/core/context/timeline.ts, DEFAULT_TIMELINE_TUNING) left out by
// conversation: each conversation is loaded once and every setting of the grid asks it every
// question that gets a timeline, at every budget. For each conversation, the setting with the best
// mean evidence on the others (ties: the current values, then the grid's order) is the one it is
// scored with; the pooled held-out figures are what the fit would give on conversations it has
// not seen. Questions that get no timeline are not asked: the constants do not touch them.
//   npm run bench:context -- --fit-timeline [--budgets 500,1000,2000] FILE|FOLDER...
import { getContext } from '../server/core/context/context.ts';
import { asksForTimeline, DEFAULT_TIMELINE_TUNING, type TimelineTuning } from '../server/core/context/timeline.ts';
import { closeStore } from '../server/storage/sqlite/open.ts';
import { loadBenchData } from './bench-data.ts';
import { covered, score } from './context-score.ts';
import { loadConversation } from './loaded-conversation.ts';
import { round } from './stats.ts';

const product = <T extends object>(axes: { [K in keyof T]: T[K][] }): Partial<T>[] =>
  Object.entries(axes).reduce<Partial<T>[]>(
    (settings, [key, values]) => settings.flatMap((s) => (values as unknown[]).map((v) => ({ ...s, [key]: v }))),
    [{}],
  );

/**
 * The grid: share by line lengths in full, the session count and an unfound exchange's value one
 * at a time (beside the values first chosen without leaving any chat out: 0.8 / 70 / 35). Its second part goes on where the first's choice sat at its edges; the gists stop at
 * 35 / 25 characters, still enough to say what was asked (the fit would take shorter lines still:
 * a line counts for the turns it quotes, however little of them it says).
 */
export const TIMELINE_GRID: TimelineTuning[] = [
  ...product<TimelineTuning>({
    share: [0.6, 0.7, 0.8, 0.9],
    request: [50, 70, 100],
    answer: [0, 35, 60],
  } as { [K in keyof TimelineTuning]: TimelineTuning[K][] }),
  ...product<TimelineTuning>({
    share: [0.85, 0.9, 0.95],
    request: [35, 42, 50],
    answer: [25, 35, 45],
  } as { [K in keyof TimelineTuning]: TimelineTuning[K][] }).filter(
    (s) => !(s.share === 0.9 && s.request === 50 && s.answer === 35),
  ),
  ...[{ sessions: 8 }, { sessions: 20 }, { unfound: 0 }, { unfound: 0.02 }].map((s) => ({
    share: 0.8,
    request: 70,
    answer: 35,
    ...s,
  })),
].map((s) => ({ ...DEFAULT_TIMELINE_TUNING, ...s }));

const isDefault = (t: TimelineTuning) =>
  (Object.keys(t) as (keyof TimelineTuning)[]).every((k) => t[k] === DEFAULT_TIMELINE_TUNING[k]);

/** One question's evidence recall per setting (grid order) and budget. */
type Asked = { conversation: string; dataset: string; category: string; recall: number[][] };

async function askConversation(path: string, budgets: number[], grid: TimelineTuning[]): Promise<Asked[]> {
  const out: Asked[] = [];
  for (const conversation of loadBenchData(path)) {
    const { store, space, questions, name, dataset } = await loadConversation(conversation);
    for (const q of questions.filter((q) => asksForTimeline(q.text))) {
      const recall: number[][] = [];
      for (const tuning of grid) {
        const row: number[] = [];
        for (const tokenBudget of budgets) {
          const input = { sessionId: 'bench:context', query: q.text, tokenBudget };
          const context = await getContext(store, space, input, { timelineTuning: tuning });
          row.push(score(q.evidence, covered(context.items, context.timeline.entries)).recall);
        }
        recall.push(row);
      }
      out.push({ conversation: name, dataset, category: q.category, recall });
      process.stderr.write(`${name}: ${out.length} question(s) asked\n`);
    }
    await closeStore(store);
  }
  return out;
}

/** The setting best on these questions (mean over questions and budgets); ties: the current values, then grid order. */
function best(asked: Asked[], grid: TimelineTuning[]): number {
  const mean = (i: number) => asked.reduce((s, q) => s + q.recall[i]!.reduce((a, b) => a + b, 0), 0);
  const current = grid.findIndex(isDefault);
  let chosen = current;
  grid.forEach((_, i) => {
    if (mean(i) > mean(chosen) + 1e-9) chosen = i;
  });
  return chosen;
}

export async function fitTimeline(paths: string[], budgets: number[], grid = TIMELINE_GRID) {
  const asked: Asked[] = [];
  for (const path of paths) asked.push(...(await askConversation(path, budgets, grid)));
  const current = grid.findIndex(isDefault);
  const conversations = [...new Set(asked.map((q) => q.conversation))];
  const chosen = new Map(
    conversations.map((c) => [
      c,
      best(
        asked.filter((q) => q.conversation !== c),
        grid,
      ),
    ]),
  );
  const perBudget = (set: Asked[], pick: (q: Asked) => number) =>
    budgets.map((_, b) => round(set.reduce((s, q) => s + q.recall[pick(q)]![b]!, 0) / Math.max(1, set.length)));
  const groups = new Map<string, Asked[]>();
  for (const q of asked) {
    for (const key of [q.dataset, `${q.dataset} ${q.category}`, q.conversation])
      groups.set(key, [...(groups.get(key) ?? []), q]);
  }
  return {
    budgets,
    grid: grid.length,
    current: DEFAULT_TIMELINE_TUNING,
    folds: conversations.map((c) => ({ conversation: c, chosen: grid[chosen.get(c)!]! })),
    groups: [...groups].map(([group, set]) => ({
      group,
      questions: set.length,
      current: perBudget(set, () => current),
      heldOut: perBudget(set, (q) => chosen.get(q.conversation)!),
    })),
    fittedOnAll: grid[best(asked, grid)]!,
  };
}

export function printTimelineFit(fit: Awaited<ReturnType<typeof fitTimeline>>): string {
  const t = (x: TimelineTuning) =>
    `share ${x.share} request ${x.request} answer ${x.answer} sessions ${x.sessions} unfound ${x.unfound}`;
  const out = [
    `timeline constants, ${fit.grid} settings; evidence of the questions that get a timeline at ${fit.budgets.join(' / ')} tokens`,
    `current: ${t(fit.current)}`,
    '',
    'group                         n   current                 left out of the fit',
  ];
  for (const g of fit.groups)
    out.push(
      `${g.group.padEnd(28)} ${String(g.questions).padStart(3)}   ${g.current.join(' / ').padEnd(22)}  ${g.heldOut.join(' / ')}`,
    );
  out.push('', 'chosen when left out:');
  for (const f of fit.folds) out.push(`  ${f.conversation.padEnd(14)} ${t(f.chosen)}`);
  out.push(`fitted on all: ${t(fit.fittedOnAll)}`);
  return out.join('\n');
}
