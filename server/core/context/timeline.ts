// The dated timeline a question about order, progress or a summary gets in its context: the
// lines of the sessions' digests that match the question, best value per token first within
// their share of the budget, then written oldest first. Lines, not model summaries: a line says
// which turns it quotes (a summary is read with the session's digest).
import { countTokens } from '../text/token-count.ts';
import { search, type SearchOptions } from '../search/search.ts';
import type { Space } from '../kernel/space.ts';
import type { Store } from '../kernel/store.ts';
import { linesOfTurns, turnsOfSessions, type DigestLine } from '../digests/digest-lines.ts';
import { TIMELINE_HEADING } from '../digests/timeline-text.ts';

export { isTimelineLine, TIMELINE_HEADING, withoutTimeline } from '../digests/timeline-text.ts';

export type TimelineEntry = DigestLine & {
  /** The entry as written in the block, with its date. */
  line: string;
  tokens: number;
  /** Value for the question that won its place (relative; higher is better). */
  value: number;
};

export type Timeline = { entries: TimelineEntry[]; markdown: string; tokens: number };

export const EMPTY_TIMELINE: Timeline = Object.freeze({ entries: [], markdown: '', tokens: 0 }) as Timeline;

/**
 * Questions that need many turns in order: a sequence ("in what order", "walk me through what I…",
 * "what steps did I…"), a summary or a progression ("how has X changed", "how did X progress",
 * "timeline"). A how-to ("walk me through how to…", "what steps would you suggest") and progress
 * as a thing talked about ("Gina's progress with her store") ask for no history.
 */
const CUES = new RegExp(
  [
    String.raw`\bwalk(?:ing)? me through (?:what|how|when|everything) (?:i|we|my|our|i've|we've)\b`,
    String.raw`\b(?:in|the) (?:what |which |chronological |right )?order\b`,
    String.raw`\border (?:in which|of)\b`,
    String.raw`\bchronolog`,
    String.raw`\btime ?line\b`,
    String.raw`\bsummar(?:y|ies|i[sz]e|i[sz]ing)\b`,
    String.raw`\brecap\b`,
    String.raw`\boverview\b`,
    String.raw`\bprogress(?:ed|ion|ing)\b`,
    String.raw`\bhow (?:has|have|did|does|do) (?:my|our|the|i|we)\b[^?.]{0,80}\bprogress\b`,
    String.raw`\bwhat progress (?:have|has|did)\b`,
    String.raw`\bevol(?:ve|ved|ving|ution)\b`,
    String.raw`\bover time\b`,
    String.raw`\bsteps? (?:did|have|had) (?:i|we)\b`,
    String.raw`\bhow (?:has|have|did) .{1,80}\b(?:change|changed|develop|developed|grow|grown|grew)\b`,
    String.raw`\bsequence of\b`,
    String.raw`\bfirst,? (?:then|and then)\b`,
  ].join('|'),
  'i',
);

/** Whether a question asks for an order, a summary or a progression (and so gets a timeline). */
export function asksForTimeline(query: string | null | undefined): boolean {
  return !!query && CUES.test(query);
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** How an entry is written in the block (under its day's heading). */
export const timelineLine = (entry: { text: string }) => `- ${entry.text}`;
const dayHeading = (at: number) => `### ${day(at)}`;

/** Words that ask for the timeline rather than say what it is about: left out of its search. */
const ASKING =
  /\b(?:can you|could you|please|give me|provide|list|walk me through|tell me|the order in which|in (?:what|which|the) order|in order|order|brought up|different|aspects?|throughout|across|over time|so far|our|conversations?|discussions?|sessions?|chats?|comprehensive|detailed|thorough|clear|summar(?:y|ies|i[sz]e)|recap|overview|timeline|mention(?: only)?(?: and only)?(?: \w+)? items?(?: in order)?|mention|only|items?)\b/gi;

/** The question without the words that ask for a timeline: what the timeline is about. */
export const topicOf = (query: string) => query.replace(ASKING, ' ').replace(/\s+/g, ' ').trim();

const TOPIC_ONLY: SearchOptions['tuning'] = { turns: { weights: { standing: 0 }, chatWeights: { standing: 0 } } };
/** Turns read from search to find the relevant sessions and value their exchanges. */
const HITS = 200;
/** At most this many turns of the relevant sessions are read for their digests. */
const MAX_TURNS = 1_000;

/**
 * What shapes a timeline (docs/benchmarks.md#questions-that-need-many-turns-the-timeline says how
 * they were chosen): its share of the budget the standing sections leave; the characters of a
 * request and of its answer in a line; at most how many sessions are read; the value of an exchange
 * search did not find, in a relevant session (shown when there is room, the most relevant sessions' first).
 */
export type TimelineTuning = { share: number; request: number; answer: number; sessions: number; unfound: number };
export const DEFAULT_TIMELINE_TUNING: TimelineTuning = {
  share: 0.95,
  request: 35,
  answer: 25,
  sessions: 12,
  unfound: 0.002,
};

/**
 * The timeline for `query` within `budget` tokens (its headings included). The sessions whose
 * turns search finds for the question's topic are relevant; every exchange of theirs is a
 * candidate line, valued by the reciprocal ranks of its turns among the hits (a little for one
 * not found, so that the timeline covers the sessions when there is room). Lines are taken by
 * value per token and written oldest first, under a heading per day.
 */
export async function buildTimeline(
  store: Store,
  space: Space,
  args: { query: string; budget: number; tuning?: Partial<TimelineTuning> },
  options: Pick<SearchOptions, 'queryVector'> = {},
): Promise<Timeline> {
  const tuning = { ...DEFAULT_TIMELINE_TUNING, ...args.tuning };
  if (args.budget <= countTokens(`${TIMELINE_HEADING}\n`) + 8) return EMPTY_TIMELINE;
  const topic = topicOf(args.query) || args.query;
  // Which sessions are about the topic: a standing instruction or preference matters to every
  // answer, not to which sessions a history needs, so it is not weighed here.
  const hits = (
    await search(store, space, { query: topic, kinds: ['turn'], limit: HITS }, { ...options, tuning: TOPIC_ONLY })
  ).hits;
  const rankValue = new Map<number, number>();
  const sessionValue = new Map<string, number>();
  hits.forEach((hit, i) => {
    rankValue.set(hit.id, 1 / (i + 2));
    if (hit.sessionId) sessionValue.set(hit.sessionId, (sessionValue.get(hit.sessionId) ?? 0) + 1 / (i + 2));
  });
  const sessions = [...sessionValue].sort((a, b) => b[1] - a[1]).slice(0, tuning.sessions);
  const best = sessions[0]?.[1] ?? 1;
  const turns = await turnsOfSessions(
    store,
    space,
    sessions.map(([id]) => id),
    MAX_TURNS,
  );
  const candidates: TimelineEntry[] = [];
  for (const [sessionId, weight] of sessions) {
    for (const line of linesOfTurns(turns.get(sessionId) ?? [], tuning)) {
      const found = line.turnIds.reduce((sum, id) => sum + (rankValue.get(id) ?? 0), 0);
      const written = timelineLine(line);
      candidates.push({
        ...line,
        line: written,
        tokens: countTokens(`${written}\n`),
        value: found || (tuning.unfound * weight) / best,
      });
    }
  }
  return fit(candidates, args.budget);
}

/** The block of these entries: oldest first, a heading per day. */
function render(entries: TimelineEntry[]): string {
  const out = [TIMELINE_HEADING];
  let current = '';
  for (const entry of entries) {
    const heading = dayHeading(entry.at);
    if (heading !== current) out.push(heading);
    current = heading;
    out.push(entry.line);
  }
  return out.join('\n');
}

/** The best entries by value per token that fit `budget` with their headings, in time order. */
function fit(candidates: TimelineEntry[], budget: number): Timeline {
  candidates.sort((a, b) => b.value / b.tokens - a.value / a.tokens);
  const headingTokens = countTokens(`${dayHeading(0)}\n`);
  const days = new Set<string>();
  const entries: TimelineEntry[] = [];
  let left = budget - countTokens(`${TIMELINE_HEADING}\n`);
  for (const c of candidates) {
    const cost = c.tokens + (days.has(day(c.at)) ? 0 : headingTokens);
    if (cost > left) continue;
    entries.push(c);
    days.add(day(c.at));
    left -= cost;
  }
  entries.sort((a, b) => a.at - b.at || a.turnIds[0]! - b.turnIds[0]!);
  let markdown = entries.length ? render(entries) : '';
  let tokens = countTokens(markdown);
  // Counted line by line the total can differ a little from the block counted whole.
  while (tokens > budget && entries.length > 0) {
    let worst = 0;
    for (let i = 1; i < entries.length; i++) if (entries[i]!.value < entries[worst]!.value) worst = i;
    entries.splice(worst, 1);
    markdown = entries.length ? render(entries) : '';
    tokens = countTokens(markdown);
  }
  return { entries, markdown, tokens };
}

/**
 * The timeline of a context block, when its query asks for one, and how the rest of the block
 * is packed around it: `pack` is given the budget left and the timeline goes on top.
 */
export async function timelineFor(
  store: Store,
  space: Space,
  args: { query: string | null; tokenBudget: number; tuning?: Partial<TimelineTuning> },
  options: Pick<SearchOptions, 'queryVector'> = {},
) {
  const share = args.tuning?.share ?? DEFAULT_TIMELINE_TUNING.share;
  const timeline = asksForTimeline(args.query)
    ? await buildTimeline(
        store,
        space,
        { query: args.query!, budget: Math.floor(args.tokenBudget * share), tuning: args.tuning },
        options,
      )
    : EMPTY_TIMELINE;
  return {
    timeline,
    /** `packRest` gets the budget left and the turns the timeline shows (their facts and the turns themselves are worth less now). */
    pack<P extends { markdown: string; tokensUsed: number }>(
      packRest: (budget: number, shown: ReadonlySet<number>) => P,
    ): P {
      const shown = new Set(timeline.entries.flatMap((e) => e.turnIds));
      if (!timeline.markdown) return packRest(args.tokenBudget, shown);
      // The blank line between the two parts, and tokens that merge across it, are paid from the rest.
      for (let slack = 2; ; slack += 4) {
        const packed = packRest(Math.max(0, args.tokenBudget - timeline.tokens - slack), shown);
        const markdown = packed.markdown ? `${timeline.markdown}\n\n${packed.markdown}` : timeline.markdown;
        const tokensUsed = countTokens(markdown);
        if (tokensUsed <= args.tokenBudget) return { ...packed, markdown, tokensUsed };
      }
    },
  };
}
