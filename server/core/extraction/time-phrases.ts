// Relative time phrases ("yesterday", "last week", "3 days ago") anchored at the turn's time,
// so an extracted event carries when it happened, not when it was mentioned.
import { DAY_MS } from '../clock.ts';

const NUMBERS: Record<string, number> = { a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, few: 3, couple: 2, several: 4 };
const UNIT_DAYS: Record<string, number> = { day: 1, week: 7, month: 30, year: 365 };

const FIXED: [RegExp, number][] = [
  [/\b(?:yesterday|last night)\b/i, -1],
  [/\b(?:today|tonight|this morning|this afternoon|this evening)\b/i, 0],
  [/\btomorrow\b/i, 1],
  [/\blast weekend\b/i, -7],
  [/\blast (?:week)\b/i, -7],
  [/\bnext (?:week)\b/i, 7],
  [/\bthis (?:coming )?weekend\b/i, 3],
  [/\blast month\b/i, -30],
  [/\bnext month\b/i, 30],
  [/\blast year\b/i, -365],
  [/\bnext year\b/i, 365],
];

/** The time a clause talks about, in epoch ms, or undefined when it names none. */
export function resolveTimePhrase(clause: string, at: number): number | undefined {
  const ago = clause.match(/\b(a|an|one|two|three|four|five|six|seven|eight|nine|ten|few|couple|several|\d+)\s+(?:of\s+)?(day|week|month|year)s?\s+ago\b/i);
  if (ago) {
    const n = NUMBERS[ago[1]!.toLowerCase()] ?? Number(ago[1]);
    return at - n * UNIT_DAYS[ago[2]!.toLowerCase()]! * DAY_MS;
  }
  for (const [pattern, days] of FIXED) if (pattern.test(clause)) return at + days * DAY_MS;
  return undefined;
}

/** Time phrases to strip from a fact's identity. */
export const TIME_WORDS =
  /\b(?:yesterday|today|tonight|tomorrow|last night|this (?:morning|afternoon|evening|weekend)|(?:last|next|this) (?:week|weekend|month|year)|(?:a|an|one|two|three|few|couple of|several|\d+) (?:days?|weeks?|months?|years?) ago|recently|lately|soon|later)\b/gi;
