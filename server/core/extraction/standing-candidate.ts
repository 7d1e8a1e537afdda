// What the standing-memory recogniser finds: an instruction, preference or profile fact, with the
// slot and polarity that decide which later one replaces it (standing.ts, save-standing.ts).
export type StandingKind = 'instruction' | 'preference' | 'profile';

export type StandingCandidate = {
  kind: StandingKind;
  content: string;
  /** What it is about: two with the same slot and opposite polarity contradict each other. */
  slot: string;
  value: string;
  polarity: 1 | -1;
  /** One value at a time (name, home, the language answers are in): a new one replaces the old. */
  exclusive: boolean;
  rule: string;
};
