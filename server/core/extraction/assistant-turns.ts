// What an assistant's turn may teach: only a decision taken with the user ("we decided to use
// Postgres") or a fact about the user that the assistant repeats back as settled ("Noted: you're
// allergic to peanuts"). Explanations, advice, lists and code are the assistant's words, not
// facts about the user's world, and are never mined (docs/extraction.md).
import { clauses, cleanValue, slotKey } from './fact-sentences.ts';
import { isRequestOrQuestion, proseOf } from './fact-filter.ts';

/** A decision the conversation reached, said by the assistant. */
const DECISION =
  /^(?:(?:so|ok(?:ay)?|great|perfect|alright|then)[,!]?\s+)*we(?:'ve| have)?\s*((?:decided|agreed) to|(?:decided|agreed) on|settled on|chose|chosen|picked|went with|are going with|'re going with|'ll go with|will go with)\s+(.+)$/i;

/** An acknowledgement, then the user's fact in the second person: "Got it, you're vegetarian". */
const CONFIRMED =
  /^(?:(?:got it|noted|understood|ok(?:ay)?|great|perfect|sure|right|thanks(?: for letting me know)?|good to know|i'll remember(?: that)?)[,.!:;—-]*\s+)+(?:so\s+)?(you(?:'re| are|'ve| have| use| prefer| work| live| like| love| moved| started| dislike| hate| can't| cannot| don't| do not)\b.+)$/i;

/** Long sentences in an assistant turn are explanation, not a restated fact. */
const MAX_CLAUSE = 200;

/** The second-person clause in the user's own words, so the user's rules read it: "you're" -> "I'm". */
export function asUserWords(clause: string): string {
  return clause
    .replace(/\byou're\b/gi, "I'm")
    .replace(/\byou've\b/gi, "I've")
    .replace(/\byou are\b/gi, 'I am')
    .replace(/\byours\b/gi, 'mine')
    .replace(/\byourself\b/gi, 'myself')
    .replace(/\byour\b/gi, 'my')
    .replace(/\byou\b/gi, 'I');
}

export type AssistantReading =
  | { kind: 'confirmed'; userWords: string; clause: string }
  | { kind: 'decision'; value: string; slot: string; clause: string; content: (subject: string) => string };

/** The clauses of an assistant turn worth reading, and how: restated user facts, and decisions. */
export function readAssistantTurn(text: string): AssistantReading[] {
  const out: AssistantReading[] = [];
  for (const clause of clauses(proseOf(text))) {
    if (clause.length > MAX_CLAUSE || isRequestOrQuestion(clause)) continue;
    const confirmed = CONFIRMED.exec(clause);
    if (confirmed) {
      out.push({ kind: 'confirmed', userWords: asUserWords(confirmed[1]!), clause });
      continue;
    }
    const decision = DECISION.exec(clause);
    if (decision) {
      const value = cleanValue(decision[2]!);
      if (!value || /^(?:it|that|this|them|one|something)$/i.test(value)) continue;
      const verb = / to$/i.test(decision[1]!) ? 'decided to' : 'chose';
      out.push({
        kind: 'decision',
        value,
        slot: `decided:${slotKey(value)}`,
        clause,
        content: (subject) => `${subject} ${verb} ${value}`,
      });
    }
  }
  return out;
}
