// Uncovered observations: the LoCoMo observations no memory from their turn covers (the
// bench:extract coverage rule, per turn, before dedupe), each put in one shape: why extraction
// missed it. A reading aid for the rules and the clause model, beside bench:extract's figures.
//   npm run bench:extract-uncovered -- [--json] [--examples N] LOCOMO.json...
// Prints, per shape, how many observations fall in it and the first N of them with the clause that
// holds the most of their words.
import { parseArgs } from 'node:util';
import { clauses } from '../server/core/extraction/fact-sentences.ts';
import { proseOf } from '../server/core/extraction/fact-filter.ts';
import { extractFacts, type FactCandidate } from '../server/core/extraction/heuristics.ts';
import { contentTokens } from './extract.ts';
import { loadLocomo } from './locomo-data.ts';
import { runMain } from './run-main.ts';

const heldIn = (part: Set<string>, whole: Set<string>) => {
  if (part.size === 0) return 0;
  let shared = 0;
  for (const token of part) if (whole.has(token)) shared++;
  return shared / part.size;
};
const covers = (observation: Set<string>, text: string) => heldIn(observation, contentTokens(text)) >= 0.5;
const FIRST_PERSON = /\b(?:i|i'm|i've|i'd|i'll|me|my|we|we're|our)\b/i;

export type Missed = {
  /** The observation, its turn, and the words the observation says. */
  observation: string;
  turn: string;
  text: string;
  /** The speaker the turn talks to: an observation that names them is about the exchange. */
  other: string;
  /** What the rules read from the turn, kept or not. */
  candidates: FactCandidate[];
};

/** Why an observation is not covered: its words are not in the turn, or in no one clause, or that clause's fact was dropped or lost them. */
export function shapeOf(m: Missed): string {
  const tokens = contentTokens(m.observation);
  const aboutOther = m.other !== '' && new RegExp(`\\b${m.other}\\b`).test(m.observation);
  if (!covers(tokens, m.text))
    return aboutOther
      ? "not in the turn's words: names the other speaker"
      : "not in the turn's words: a paraphrase or summary";
  const best = clauses(proseOf(m.text))
    .map((clause) => ({ clause, held: heldIn(tokens, contentTokens(clause)) }))
    .sort((a, b) => b.held - a.held)[0];
  if (!best || best.held < 0.5)
    return aboutOther ? 'spread over clauses, names the other speaker' : 'spread over clauses';
  const read = m.candidates.filter((f) => f.clause === best.clause);
  const dropped = read.find((f) => covers(tokens, f.content));
  if (dropped) return `one clause; its fact dropped by the model (${dropped.rule})`;
  if (read.length > 0) return `one clause; its fact leaves the words out (${read[0]!.rule})`;
  if (/\?\s*$/.test(best.clause)) return 'one clause; a question';
  return FIRST_PERSON.test(best.clause)
    ? 'one clause; first person, no rule reads it'
    : 'one clause; not first person, no rule reads it';
}

/** Every uncovered observation of the conversations, with its shape. */
export function uncovered(files: string[]): (Missed & { shape: string; clause: string })[] {
  const out: (Missed & { shape: string; clause: string })[] = [];
  for (const c of files.flatMap((f) => loadLocomo(f))) {
    const speakers = [...new Set(c.sessions.flatMap((s) => s.turns.map((t) => t.speaker)))];
    const observationsOf = new Map<string, string[]>();
    for (const o of c.observations)
      for (const id of o.diaIds) observationsOf.set(id, [...(observationsOf.get(id) ?? []), o.text]);
    for (const session of c.sessions)
      for (const turn of session.turns) {
        const observations = observationsOf.get(turn.diaId) ?? [];
        if (observations.length === 0) continue;
        const kept = extractFacts(turn.text, turn.speaker, turn.at);
        const candidates = extractFacts(turn.text, turn.speaker, turn.at, { keep: () => true });
        for (const observation of observations) {
          const tokens = contentTokens(observation);
          if (kept.some((f) => covers(tokens, f.content))) continue;
          const other = speakers.find((s) => s !== turn.speaker) ?? '';
          const missed = { observation, turn: `${c.name} ${turn.diaId}`, text: turn.text, other, candidates };
          const clause =
            clauses(proseOf(turn.text)).sort(
              (a, b) => heldIn(tokens, contentTokens(b)) - heldIn(tokens, contentTokens(a)),
            )[0] ?? '';
          out.push({ ...missed, shape: shapeOf(missed), clause });
        }
      }
  }
  return out;
}

async function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { json: { type: 'boolean', default: false }, examples: { type: 'string', default: '5' } },
  });
  if (positionals.length === 0) throw new Error('give LoCoMo files');
  const examples = Number(values.examples);
  if (!Number.isInteger(examples) || examples < 0) throw new Error(`--examples: ${values.examples} is not a count`);
  const missed = uncovered(positionals);
  const shapes = new Map<string, typeof missed>();
  for (const m of missed) shapes.set(m.shape, [...(shapes.get(m.shape) ?? []), m]);
  const ranked = [...shapes].sort((a, b) => b[1].length - a[1].length);
  if (values.json) {
    const counts = Object.fromEntries(ranked.map(([shape, list]) => [shape, list.length]));
    console.log(JSON.stringify({ uncovered: missed.length, shapes: counts }));
    return;
  }
  console.log(`${missed.length} uncovered observations\n`);
  for (const [shape, list] of ranked) {
    console.log(`${list.length}\t${shape}`);
    for (const m of list.slice(0, examples)) console.log(`    [${m.turn}] ${m.observation}\n        <- ${m.clause}`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runMain(main);
