// What a heuristic rule is: a pattern tried on one clause, and the facts it builds from a match,
// each said about whoever the subject is (heuristics.ts runs them in order).
export type Match = {
  slot: string;
  value: string;
  polarity: 1 | -1;
  exclusive: boolean;
  rule: string;
  content: (s: string) => string;
  tags?: string[];
  protect?: boolean;
};
export type Rule = {
  name: string;
  pattern: RegExp;
  build: (m: RegExpMatchArray, clause: string) => Match | Match[] | null;
};

/** A rule's match with the subject it is about. */
export type Built = Match & { subject: string };

/** Adverbs a statement may carry before its verb ("I really like…"): rules in every file allow them. */
export const ADVERBS = String.raw`(?:(?:really|also|still|just|truly|totally|absolutely|actually|recently|finally|now|do|kind of|sort of|definitely|honestly)\s+)*`;
