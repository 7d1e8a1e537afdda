// The synthetic history of the scale benchmarks: a Zipf vocabulary, users' sessions interleaved
// in time, a turn and a fact per row; deterministic (seeded), the same rows for every backend.
/** Deterministic PRNG (mulberry32), so every run builds the same store. */
export function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SYLLABLES = 'ka ri mo lu sen ta vi ro na el pa do mi gu an te lo be sa fi'.split(' ');
export const NAMES = ['Caroline', 'Melanie', 'John', 'Maria', 'Gina', 'Jon', 'Sam', 'Alex', 'Priya', 'Tomás'];

/** A Zipf-distributed vocabulary: a few words everywhere, most words rare, as in real chat. */
export function makeText(random: () => number) {
  const vocab = Array.from({ length: 8000 }, (_, i) => {
    let word = '';
    for (let n = i + 1; n > 0; n = Math.floor(n / SYLLABLES.length)) word += SYLLABLES[n % SYLLABLES.length];
    return word;
  });
  const cdf: number[] = [];
  let total = 0;
  for (let i = 0; i < vocab.length; i++) cdf.push((total += 1 / (i + 1) ** 1.05));
  const pick = () => {
    const x = random() * total;
    let lo = 0;
    let hi = cdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return vocab[lo]!;
  };
  return {
    sentence: (min: number, max: number) =>
      Array.from({ length: min + Math.floor(random() * (max - min)) }, pick).join(' '),
    word: pick,
  };
}

/** Rows of user `u` when `rows` rows are spread evenly over `users` users. */
const share = (u: number, rows: number, users: number) =>
  Math.floor(((u + 1) * rows) / users) - Math.floor((u * rows) / users);

/** The user id of the `u`-th of `users` users: `default` when there is one. */
export const userName = (u: number, users: number) => (users === 1 ? 'default' : `user${u}`);

/** Turns per session for a user of `rows` turns: 100, or fewer so that every user has about 4 sessions. */
export const sessionSize = (rows: number) => Math.max(1, Math.min(100, Math.ceil(rows / 4)));

/** One synthetic session and its rows (a turn and the fact extracted from it each). */
export type SyntheticSession = { user: string; session: string; first: number; last: number; rows: SyntheticRow[] };
export type SyntheticRow = {
  speaker: string;
  text: string;
  at: number;
  content: string;
  layer: 'long' | 'mid';
  hits: number;
  score: number;
  importance: number;
};

/**
 * `size` turns (with a fact each) spread evenly over `users` users, plus `extra.rows` turns of
 * `extra.user`. Each user's turns come in sessions (s0, s1... of that user: session ids repeat
 * across users, as in an app); the sessions of different users interleave in time, in a fixed
 * shuffled order, as users talking at once would write them, so a user's rows are spread over
 * the store rather than side by side. The same rows whatever the backend loading them.
 */
export function synthetic(
  size: number,
  random: () => number,
  users = 1,
  extra: { user: string; rows: number } | null = null,
) {
  const text = makeText(random);
  // Every session as (user, its turns), each user's in order; then the users' sessions interleaved.
  const owners = [
    ...Array.from({ length: users }, (_, u) => ({ id: userName(u, users), rows: share(u, size, users) })),
    ...(extra ? [{ id: extra.user, rows: extra.rows }] : []),
  ];
  const queues = owners.map((owner) => {
    const per = sessionSize(owner.rows);
    return Array.from({ length: Math.ceil(owner.rows / per) }, (_, s) => ({
      user: owner.id,
      session: `s${s}`,
      rows: Math.min(per, owner.rows - s * per),
    }));
  });
  const slots = queues.flatMap((queue, q) => queue.map(() => q));
  // Its own generator, so the text (and bench:locomo --crowd's store) does not depend on the layout.
  const shuffle = rng(1234);
  if (queues.length > 1) {
    for (let i = slots.length - 1; i > 0; i--) {
      const j = Math.floor(shuffle() * (i + 1));
      [slots[i], slots[j]] = [slots[j]!, slots[i]!];
    }
  }
  const next = queues.map(() => 0);
  const layout = slots.map((q) => queues[q]![next[q]!++]!);
  const start = Date.UTC(2024, 0, 1);
  // Lazily, a session at a time: 100k rows of text need not be held at once.
  function* sessions(): Generator<SyntheticSession> {
    let i = 0;
    for (const [n, { user, session, rows }] of layout.entries()) {
      const name = NAMES[n % NAMES.length]!;
      const other = NAMES[(n + 1) % NAMES.length]!;
      const first = start + i * 60_000;
      const out: SyntheticRow[] = [];
      for (let r = 0; r < rows; r++, i++) {
        const at = start + i * 60_000;
        const speaker = r % 2 === 0 ? name : other;
        const turnText = text.sentence(8, 30);
        const content = `${speaker} ${text.sentence(4, 12)}`;
        out.push({
          speaker,
          text: turnText,
          at,
          content,
          layer: random() < 0.1 ? 'long' : 'mid',
          hits: Math.floor(random() * 4),
          score: random() * 3,
          importance: random(),
        });
      }
      yield { user, session, first, last: first + (rows - 1) * 60_000, rows: out };
    }
  }
  return { text, sessions: sessions() };
}

/**
 * A question about the synthetic history, as a user would ask it. Every word it is matched by is
 * in the history ("say" is a word about the conversation, not matched): until 2026-11-28 "say"
 * was, and as a word no row holds it made every query of common words match nothing.
 */
export const question = (text: ReturnType<typeof makeText>, random: () => number) =>
  `What did ${NAMES[Math.floor(random() * NAMES.length)]} say about ${text.sentence(2, 5)}?`;
