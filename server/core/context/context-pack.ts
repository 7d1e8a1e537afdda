// Context packing (docs/architecture.md#context): one list of candidates (facts, turns, reflections), each valued by its
// rank for the query, fills a token budget greedily by value per token, then is ordered for
// reading. Pure: no store access, so the benchmark can pack one candidate list many ways.
import { countTokens } from '../text/token-count.ts';

export type CandidateKind = 'fact' | 'reflection' | 'turn';

export type Candidate = {
  kind: CandidateKind;
  id: number;
  /** The markdown line as written in the block. */
  line: string;
  /** Its date, for reading order: the turn's time, the fact's stated date, the reflection's. */
  at: number;
  /**
   * 1-based rank among the candidates of its kind that search found for the query (or, with no
   * query, in recency / salience order); null when only `projected` or the fill tier brought it.
   */
  rank: number | null;
  /** For a fact: the best rank of its source turns among the turns found. */
  projected: number | null;
  /** Query hits come first; fill candidates (recent material) only take the space left. */
  tier: 'query' | 'fill';
  /** An archived fact that a newer one replaced (shown with its superseded-on date). */
  superseded: boolean;
  /** For a fact: the turns it was extracted from. */
  sourceTurnIds: number[];
};

export type PackTuning = {
  /** Value of rank r is (r + offset)^-decay: how fast relevance falls with rank. */
  decay: number;
  offset: number;
  /** Weights of each kind against a turn of the same rank. */
  fact: number;
  reflection: number;
  /** A fact valued by the rank of its source turn among the turns found. */
  projected: number;
  /** A superseded fact against a current one. */
  superseded: number;
  /** A fact whose source turns are all in the block (or the short-term window) already. */
  factAfterTurn: number;
  /** A turn whose fact is in the block already. */
  turnAfterFact: number;
  /** Fill candidates against the weakest query hit. */
  fill: number;
  /** Priority is value / tokens^length: 1 is value per token; below 1 long items are penalised less. */
  length: number;
};

/**
 * Fitted on the five LoCoMo development conversations by coordinate ascent on evidence-in-context
 * at 500, 1,000 and 2,000 tokens (bench/context.ts --fit, which also reports each conversation
 * packed with values fitted on the other four). The fit set both dedupe factors to 0; they are
 * 0.1 here, so that a fact's own turn still comes before filler when there is room (evidence
 * -0.001 at 500 and 1,000 tokens, -0.004 at 2,000). Value per token (length 1) was the best of
 * the exponents tried.
 */
export const DEFAULT_PACK_TUNING: PackTuning = {
  decay: 1,
  offset: 1,
  fact: 0.25,
  reflection: 1,
  projected: 1,
  superseded: 0.5,
  factAfterTurn: 0.1,
  turnAfterFact: 0.1,
  fill: 1e-3,
  length: 1,
};

/**
 * For a user's chats with an assistant (context-candidates.ts isChat), fitted the same way on the
 * seven BEAM development chats. A long message yields many facts, and valued by their turn's rank
 * they filled the block with one message's asides: here a fact counts by its own rank only
 * (`projected` 0), and relevance falls more slowly with rank (`offset` 4). Each chat packed with
 * values fitted on the other six: evidence 0.480 / 0.645 / 0.761 -> 0.606 / 0.714 / 0.780 at 500 /
 * 1,000 / 2,000 tokens (docs/benchmarks.md).
 */
export const CHAT_PACK_TUNING: PackTuning = {
  ...DEFAULT_PACK_TUNING,
  offset: 4,
  fact: 0.5,
  projected: 0,
  factAfterTurn: 0,
};

export const GROUPS: { kind: CandidateKind; title: string }[] = [
  { kind: 'fact', title: 'Facts' },
  { kind: 'turn', title: 'Conversation excerpts' },
  { kind: 'reflection', title: 'Weekly insight' },
];

export type Packed = { candidate: Candidate; tokens: number; value: number };

export type PackResult = { items: Packed[]; markdown: string; tokensUsed: number };

const headingOf = (kind: CandidateKind) => `## ${GROUPS.find((g) => g.kind === kind)!.title}`;

/** A rough count (4 characters a token) that orders candidates before their exact count. */
const estimate = (text: string) => Math.ceil(text.length / 4) + 1;

/** The value of a candidate before deduplication against what is already in the block. */
export function baseValue(c: Candidate, t: PackTuning): number {
  const at = (rank: number) => (rank + t.offset) ** -t.decay;
  const weight = c.kind === 'fact' ? t.fact : c.kind === 'reflection' ? t.reflection : 1;
  let value = c.rank === null ? 0 : weight * at(c.rank);
  if (c.projected !== null) value = Math.max(value, t.projected * at(c.projected));
  if (c.superseded) value *= t.superseded;
  return value;
}

/** Groups in GROUPS order, chronological inside, each under its heading. */
export function render(items: Packed[]): string {
  const blocks: string[] = [];
  for (const group of GROUPS) {
    const lines = items
      .filter((p) => p.candidate.kind === group.kind)
      .sort((a, b) => a.candidate.at - b.candidate.at || a.candidate.id - b.candidate.id)
      .map((p) => p.candidate.line);
    if (lines.length > 0) blocks.push([headingOf(group.kind), ...lines].join('\n'));
  }
  return blocks.join('\n\n');
}

type Entry = { candidate: Candidate; base: number; priority: number; tokens: number | null };

/**
 * Fills `budget` tokens: repeatedly takes the candidate of highest value per token that still
 * fits (a group's heading costs its tokens with the group's first item), with values lowered for
 * a fact whose source turns are in already (or in `window`, the short-term turns the caller shows
 * anyway) and for a turn whose fact is in. Tokens are counted exactly (token-count.ts) as a
 * candidate is taken; the order before that uses an estimate. The block is then checked whole.
 */
export function pack(
  candidates: Candidate[],
  budget: number,
  tuning: PackTuning = DEFAULT_PACK_TUNING,
  window: ReadonlySet<number> = new Set(),
): PackResult {
  const queryValues = candidates
    .filter((c) => c.tier === 'query')
    .map((c) => baseValue(c, tuning))
    .filter((v) => v > 0);
  const floor = queryValues.length ? Math.min(...queryValues) : 1;
  const entries: Entry[] = candidates
    .map((candidate) => {
      const base =
        candidate.tier === 'query' ? baseValue(candidate, tuning) : tuning.fill * floor * fillValue(candidate, tuning);
      return { candidate, base, priority: base / estimate(candidate.line) ** tuning.length, tokens: null };
    })
    .filter((e) => e.base > 0)
    .sort((a, b) => b.priority - a.priority);

  const takenTurns = new Set<number>();
  /** Turn id -> facts taken that came from it. */
  const factOfTurn = new Set<number>();
  const openGroups = new Set<CandidateKind>();
  const headingTokens = new Map(GROUPS.map((g) => [g.kind, countTokens(`${headingOf(g.kind)}\n`) + 1]));
  const taken: Packed[] = [];
  let left = budget;

  const marginal = (e: Entry) => {
    const c = e.candidate;
    if (
      c.kind === 'fact' &&
      c.sourceTurnIds.length > 0 &&
      c.sourceTurnIds.every((id) => takenTurns.has(id) || window.has(id))
    )
      return e.base * tuning.factAfterTurn;
    if (c.kind === 'turn' && factOfTurn.has(c.id)) return e.base * tuning.turnAfterFact;
    return e.base;
  };

  // Lazy greedy: a popped entry whose value dropped since it was queued goes back in its place.
  const queue = entries;
  while (queue.length > 0 && left > 0) {
    const e = queue.shift()!;
    const heading = openGroups.has(e.candidate.kind) ? 0 : headingTokens.get(e.candidate.kind)!;
    // Cheap skip: clearly too long for what is left, without counting.
    if (estimate(e.candidate.line) * 0.6 > left - heading) continue;
    e.tokens ??= countTokens(`${e.candidate.line}\n`);
    const value = marginal(e);
    const priority = value / (e.tokens + heading) ** tuning.length;
    const next = queue[0];
    if (next && priority < next.priority - 1e-15) {
      e.priority = priority;
      insertSorted(queue, e);
      continue;
    }
    if (e.tokens + heading > left) continue;
    left -= e.tokens + heading;
    openGroups.add(e.candidate.kind);
    taken.push({ candidate: e.candidate, tokens: e.tokens, value });
    if (e.candidate.kind === 'turn') takenTurns.add(e.candidate.id);
    if (e.candidate.kind === 'fact') for (const id of e.candidate.sourceTurnIds) factOfTurn.add(id);
  }

  // Lines counted one by one can differ from the block counted whole (tokens merge across a
  // line break): drop the least valuable items until the whole fits.
  let markdown = render(taken);
  let tokensUsed = countTokens(markdown);
  while (tokensUsed > budget && taken.length > 0) {
    let worst = 0;
    for (let i = 1; i < taken.length; i++) if (taken[i]!.value < taken[worst]!.value) worst = i;
    taken.splice(worst, 1);
    markdown = render(taken);
    tokensUsed = countTokens(markdown);
  }
  return { items: taken.sort((a, b) => b.value - a.value), markdown, tokensUsed };
}

/** Fill candidates keep their own order (newest or most salient first) below every query hit. */
function fillValue(c: Candidate, t: PackTuning): number {
  return ((c.rank ?? 1) + t.offset) ** -t.decay / (1 + t.offset) ** -t.decay;
}

function insertSorted(queue: Entry[], e: Entry) {
  let lo = 0;
  let hi = queue.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (queue[mid]!.priority >= e.priority) lo = mid + 1;
    else hi = mid;
  }
  queue.splice(lo, 0, e);
}
