// Fragment scan: the memories heuristic extraction keeps from LoCoMo and BEAM turns, and those that
// look broken (a cut clause, a dangling word, a possession said only as a condition). A reading aid
// for the rules, not a figure: each class is a pattern over the memory's sentence, so its counts
// are candidates to read by hand.
//   npm run bench:extract-fragments -- [--json] [--sample N] [--seed S] [--class NAME] [LOCOMO.json | BEAM_FOLDER]...
// Prints, per data set, the kept memories, how many fall in each class, the flagged ones with
// their clause, and a seeded sample of kept memories to read by hand.
import { parseArgs } from 'node:util';
import { extractAssistantFacts, extractFacts } from '../server/core/extraction/heuristics.ts';
import { proseOf } from '../server/core/extraction/fact-filter.ts';
import { loadBenchData, type BenchConversation } from './bench-data.ts';
import { runMain } from './run-main.ts';

export type Kept = {
  dataset: string;
  conversation: string;
  turn: string;
  rule: string;
  content: string;
  clause: string;
};

/** Past forms that take an object: followed directly by a preposition or a date, the object was lost. */
const TRANSITIVE =
  'bought|made|got|took|found|saw|built|wrote|brought|gave|sent|created|finished|received|picked|painted|baked|adopted|read|drew|sold|kept|caught|chose|won|lost|held|watched|tried|started|joined|visited|tested|added|used|ordered|booked|cooked|planted|grabbed|posted|shared|learned|learnt|needed|wanted|loved|liked|enjoyed|decided|organized|organised|hosted|attended|completed|designed|knitted|sewed|framed';
const CUT_OBJECT = new RegExp(
  String.raw`^\S+(?:'s \w+)? (?:${TRANSITIVE}) (?:on|in|at|for|with|from|by|of|about|when|last|yesterday|today|recently)\b|^\S+ (?:${TRANSITIVE}) (?:in|for|up|out|on|some)$`,
  'i',
);

/** A sentence that ends where its clause went on: on a preposition, an article, a conjunction or a possessive. */
const DANGLING_END =
  /\b(?:the|a|an|of|to|for|with|and|or|but|in|on|at|from|by|about|into|their|his|her|its|our|my|some|that|which|who|whom|when|if|because|as|than|like|just|so|very|is|are|was|were|be|been|being|has|have|had|will|would|can|could|should)$/i;

/** A verb after the subject's fact with nobody doing it: "bought on 7 May 2023 remind them of". */
const LOST_SUBJECT =
  /\b(?:on \d{1,2} \w+ \d{4}|yesterday|last \w+) (?:remind|reminds|make|makes|help|helps|keep|keeps|give|gives|mean|means|show|shows)\b/i;

/** "has"/"have" read inside a condition or a time still to come ("for when I have kids"). */
const CONDITIONAL_HAVE =
  /\b(?:when|if|once|until|unless|whenever|till|before|after)\s+(?:i|we)\s+(?:have|own|get|'ve got)\b/i;

/** A determiner and a noun right before "I": "the cake I made", "something I love". */
const RELATIVE_I =
  /\b(?:(?:[Tt]he|[Aa]n?|[Tt]his|[Tt]hese|[Tt]hose|[Ss]ome|[Aa]nother) [a-z]+|[Ss]omething|[Ee]verything|[Ww]hat) (?:that )?I (?!and\b)/;
/** What plan.future should not read as a plan: an error of the moment, words to the listener. */
const PLAN_OF_THE_MOMENT =
  /\bis getting (?:an? |the )?(?:[\w."-]+ )?(?:error|exception|warning|when)\b|\byou\b|is (?:doing|going) (?:alright|fine|well|ok)\b|is having (?:fun|to)\b/i;

const STOPWORDS = new Set(
  'a an the and or but of to in on at for with from by about as is are was were be been being it its this that these those he she they them their i me my we our you your who which what when where how has have had do does did so very also just really not no than then there here into over after before up out some any all can could would should will may might one said'.split(
    ' ',
  ),
);
/** Content words past the subject (the memory's first word). */
const contentAfterSubject = (content: string) =>
  (content.toLowerCase().match(/[a-z0-9']+/g) ?? []).slice(1).filter((w) => !STOPWORDS.has(w) && w.length > 2).length;

export const CLASSES: Record<string, (k: Kept) => boolean> = {
  'cut object (verb + preposition/date)': (k) => CUT_OBJECT.test(k.content),
  'dangling end': (k) => DANGLING_END.test(k.content.replace(/[.!?]+$/, '')),
  'lost subject': (k) => LOST_SUBJECT.test(k.content),
  'conditional has': (k) => k.rule.endsWith('possession.has') && CONDITIONAL_HAVE.test(k.clause),
  'under 3 content words': (k) => contentAfterSubject(k.content) < 3,
  'relative "I" read as the subject': (k) =>
    /^(?:event\.past|state\.started|preference\.|possession\.has)/.test(k.rule) && RELATIVE_I.test(k.clause),
  'embedded "my X is"': (k) => k.rule.endsWith('attribute.my') && !/^(?:[\w'-]+[,!]?\s+){0,2}my\b/i.test(k.clause),
  'plan of the moment': (k) => k.rule.endsWith('plan.future') && PLAN_OF_THE_MOMENT.test(k.content),
};

/** Every memory extraction keeps from one conversation's turns (before dedupe). */
export function keptOf(c: BenchConversation): Kept[] {
  const kept: Kept[] = [];
  for (const session of c.sessions)
    for (const turn of session.turns) {
      const subject = turn.name ?? 'User';
      const facts =
        turn.role === 'assistant'
          ? extractAssistantFacts(turn.text, 'User', turn.at)
          : extractFacts(turn.text, subject, turn.at, { prose: proseOf(turn.text) });
      for (const f of facts)
        kept.push({
          dataset: c.dataset,
          conversation: c.name,
          turn: turn.id,
          rule: f.rule,
          content: f.content,
          clause: f.clause,
        });
    }
  return kept;
}

/** A seeded shuffle (mulberry32), so a sample can be read again. */
function sample<T>(items: T[], n: number, seed: number): T[] {
  let s = seed >>> 0;
  const next = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy.slice(0, n);
}

const line = (k: Kept) => `  [${k.conversation} ${k.turn} ${k.rule}] ${k.content}\n      <- ${k.clause}`;

async function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      sample: { type: 'string', default: '60' },
      seed: { type: 'string', default: '1' },
      class: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  if (positionals.length === 0) throw new Error('give LoCoMo files and BEAM chat folders');
  const size = Number(values.sample);
  if (!Number.isInteger(size) || size < 0) throw new Error(`--sample: ${values.sample} is not a count`);
  const all = positionals.flatMap(loadBenchData).flatMap(keptOf);
  const report = ['locomo', 'beam'].flatMap((dataset) => {
    const kept = all.filter((k) => k.dataset === dataset);
    if (kept.length === 0) return [];
    const classes = Object.fromEntries(Object.entries(CLASSES).map(([name, test]) => [name, kept.filter(test)]));
    return [{ dataset, kept: kept.length, classes, sample: sample(kept, size, Number(values.seed)) }];
  });
  if (values.json) {
    console.log(JSON.stringify(report));
    return;
  }
  for (const { dataset, kept, classes, sample: picked } of report) {
    console.log(`\n=== ${dataset}: ${kept} kept memories`);
    for (const [name, hits] of Object.entries(classes)) {
      console.log(`${name}: ${hits.length}`);
      if (!values.class || name.startsWith(values.class)) for (const k of hits) console.log(line(k));
    }
    console.log(`\n--- sample of ${size} (seed ${values.seed})`);
    for (const k of picked) console.log(line(k));
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runMain(main);
