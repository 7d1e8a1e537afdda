// A question that compares two events ("How many days between when I booked the hotel and when I
// checked in?", "Which came first: X, or Y?") needs a turn for each. Ranked as one query, the
// event with more or rarer words takes the top places; search ranks each event on its own too
// (docs/memory.md#compared-events).
import { analyzeQuery, type AnalyzedQuery } from './query.ts';

/** "and when" splits "between X and Y" before a plain "and", which may sit inside X ("unit and integration tests"). */
const BETWEEN_SEPARATORS = [/\s+and\s+when\s+/i, /\s+and\s+the\s+/i, /\s+and\s+my\s+/i, /\s+and\s+I\s+/, /\s+and\s+/i];
const BETWEEN = /\bbetween\s+(.+)$/i;
const WHICH_FIRST =
  /\b(?:which|what)\b[^:,?]*?\b(?:first|earlier|sooner|later|last|before|after)\b\s*[:,]?\s*(.+?),?\s+or\s+(.+)$/i;
const BEFORE_OR_AFTER = /^(?:did|was|were|is|are|do|does|had|has)\s+(.+?)\s+before or after\s+(.+)$/i;
const HOW_LONG_AFTER =
  /\bhow (?:long|much time|many \w+)\s+(?:after|before|since)\s+(.+?)\s+(?:did|was|were|do|does|had|have|could|would)\s+(.+)$/i;

/** A question that compares is a sentence; past this the patterns below would backtrack over pages of text. */
const MAX_CHARS = 400;

/** Leading "when", trailing punctuation and spaces. */
const clean = (part: string) =>
  part
    .replace(/^\s*when\s+/i, '')
    .replace(/[\s?.!,;:]+$/, '')
    .trim();

/**
 * The events a question compares, as text (two of them), or null when it compares none. Search
 * keeps a part only when it has words of its own to match.
 */
export function comparedEvents(question: string): string[] | null {
  const text = question.trim();
  if (text.length > MAX_CHARS) return null;
  const between = text.match(BETWEEN);
  if (between) {
    const rest = between[1]!;
    for (const separator of BETWEEN_SEPARATORS) {
      const at = rest.search(separator);
      if (at <= 0) continue;
      const length = rest.slice(at).match(separator)![0].length;
      return [clean(rest.slice(0, at)), clean(rest.slice(at + length))];
    }
  }
  const pair = text.match(WHICH_FIRST) ?? text.match(BEFORE_OR_AFTER) ?? text.match(HOW_LONG_AFTER);
  return pair ? [clean(pair[1]!), clean(pair[2]!)] : null;
}

/** The compared events analysed as queries; none unless each has two words to match ("Coco or Shadow" has not). */
export function comparedEventQueries(
  question: string,
  speakerLookup: (token: string) => string | undefined,
  now?: number,
): AnalyzedQuery[] {
  const events = (comparedEvents(question) ?? []).map((part) => analyzeQuery(part, speakerLookup, now));
  return events.length > 1 && events.every((event) => event.terms.length > 1) ? events : [];
}
