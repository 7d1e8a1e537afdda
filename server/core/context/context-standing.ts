// The standing part of a context block: what holds for every answer, whatever the query. It
// opens the block with "Standing instructions" and "About the user" (preferences, profile facts,
// and any pinned memory), within a share of the budget (config context.standing_share). Pinned
// memories come first, then those the query matches, then the newest stated (the most used first among equally new); when some do
// not fit, the section says how many were left out. The query-ranked list fills the rest.
import { STANDING_CONDITION } from '../../../drizzle/vocabulary.ts';
import { memoryRows, type MemoryRow } from '../memory/memories.ts';
import { isStopword } from '../text/query.ts';
import { DEFAULT_SPACE, spaceClause, type Space } from '../kernel/space.ts';
import type { SqlParam, Store } from '../kernel/store.ts';
import { countTokens } from '../text/token-count.ts';
import { tokens } from '../text/text.ts';

export type StandingItem = { memory: MemoryRow; line: string; tokens: number; at: number; sourceTurnIds: number[] };

export type StandingSection = {
  title: string;
  items: StandingItem[];
  /** Memories of the section that did not fit its share of the budget. */
  leftOut: number;
};

export type StandingBlock = {
  instructions: StandingSection;
  about: StandingSection;
  markdown: string;
  tokens: number;
  ids: Set<number>;
};

export const STANDING_TITLES = { instructions: 'Standing instructions', about: 'About the user' } as const;

/** How many standing memories a block looks through (pinned first, then the newest stated, the most used first among equally new). */
const READ_LIMIT = 2_000;
/** Shares of the budget that standing memories the query does not match may take (within the standing share). */
export type StandingTuning = { unmatchedInstructions: number; unmatchedAbout: number };

export const DEFAULT_STANDING_TUNING: StandingTuning = { unmatchedInstructions: 0.1, unmatchedAbout: 0.05 };
/** Tokens an unmatched section may take whatever the budget: its heading and a line or two. */
const UNMATCHED_FLOOR = 50;

/** Exported for the query-plan test: it must read the memories_standing partial index, not every memory of the user. */
export const STANDING_ROWS = `select ${memoryRows.columns} from memories m
  where ${spaceClause(DEFAULT_SPACE, 'm').sql} and status = 'active' and (${STANDING_CONDITION})
  order by m.pinned desc, m.event_at desc, m.access_count desc, m.id desc limit ${READ_LIMIT}`;

const SOURCES = `select s.memory_id as memoryId, s.turn_id as turnId, t.at as at from memory_sources s join turns t on t.id = s.turn_id
  where s.memory_id in (select value from sm_ids(?)) order by t.at, t.id`;

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const oneLine = (text: string) => text.replace(/\s*\n\s*/g, ' ').trim();

async function standingRows(store: Store, space: Space): Promise<MemoryRow[]> {
  return (await store.sql.values(STANDING_ROWS, spaceClause(space, 'm').params as SqlParam[])).map((raw) =>
    memoryRows.decode(raw),
  );
}

/** The order within a section: pinned, then what the query matches (best first), then the newest stated (the most used first among equally new). */
function ordered(rows: MemoryRow[], matchRank: Map<number, number>): MemoryRow[] {
  const position = new Map(rows.map((m, i) => [m.id, i]));
  const key = (m: MemoryRow) => (m.pinned ? 0 : matchRank.has(m.id) ? 1 : 2);
  return [...rows].sort(
    (a, b) =>
      key(a) - key(b) ||
      (matchRank.get(a.id) ?? 0) - (matchRank.get(b.id) ?? 0) ||
      position.get(a.id)! - position.get(b.id)!,
  );
}

/** A block being filled: the room left, the sections already charged their heading, each memory's sources. */
type Filling = {
  block: StandingBlock;
  left: number;
  charged: Set<StandingSection>;
  sources: Map<number, { turnIds: number[]; firstAt: number }>;
};

/** These memories into a section, in order, each that fits what is left (and `cap`, the tokens this pass may take). */
function fill(state: Filling, section: StandingSection, list: MemoryRow[], what: string, cap = Infinity) {
  // Room for the heading (and the blank line before it) and a "left out" line, kept back with the section's first item.
  const reserve = state.charged.has(section)
    ? 0
    : countTokens(`## ${section.title}\n`) + 2 + countTokens(leftOutLine(12_345, what));
  const room = Math.min(state.left, cap);
  let used = 0;
  for (const memory of list) {
    const source = state.sources.get(memory.id);
    const stated = source?.firstAt ?? memory.createdAt;
    const line = `- ${oneLine(memory.content)} (${memory.pinned ? 'pinned, ' : ''}stated ${day(stated)})`;
    // Clearly too long for what is left: skipped without counting (a user may have hundreds).
    const tokens = line.length * 0.2 > room - used - reserve ? Infinity : countTokens(`${line}\n`);
    if (used + tokens + reserve > room) {
      section.leftOut++;
      continue;
    }
    used += tokens;
    section.items.push({ memory, line, tokens, at: stated, sourceTurnIds: source?.turnIds ?? [] });
    state.block.ids.add(memory.id);
  }
  if (used > 0 || (list.length > 0 && !state.charged.has(section))) {
    state.left -= used + reserve;
    state.charged.add(section);
  }
}

/** The block's markdown and tokens; lines counted one by one can differ from the block counted whole, so the last ones give way. */
function writeWithin(block: StandingBlock, room: number) {
  const write = () => {
    block.markdown = [render(block.instructions, WHAT.instructions), render(block.about, WHAT.about)]
      .filter(Boolean)
      .join('\n\n');
    block.tokens = block.markdown ? countTokens(block.markdown) : 0;
  };
  write();
  while (block.tokens > room) {
    const section = block.about.items.length > 0 ? block.about : block.instructions;
    const dropped = section.items.pop();
    if (!dropped) break;
    section.leftOut++;
    block.ids.delete(dropped.memory.id);
    write();
  }
}

const emptyBlock = (): StandingBlock => ({
  instructions: { title: STANDING_TITLES.instructions, items: [], leftOut: 0 },
  about: { title: STANDING_TITLES.about, items: [], leftOut: 0 },
  markdown: '',
  tokens: 0,
  ids: new Set(),
});

/**
 * The standing sections for a block of `tokenBudget` tokens: at most `share` of it. Pinned
 * memories first (both sections), then instructions before what is known about the user: what
 * the query matches, then the newest in a smaller part of the room (a chatty user states dozens
 * of likes; most say nothing to this question).
 */
export async function standingBlock(
  store: Store,
  space: Space,
  args: {
    query: string | null;
    tokenBudget: number;
    share: number;
    hidden?: (m: MemoryRow) => boolean;
    tuning?: Partial<StandingTuning>;
  },
): Promise<StandingBlock> {
  const tuning = { ...DEFAULT_STANDING_TUNING, ...args.tuning };
  const rows = (await standingRows(store, space)).filter((m) => !args.hidden?.(m));
  const block = emptyBlock();
  const room = Math.floor(args.tokenBudget * args.share);
  if (rows.length === 0 || room <= 0) return block;
  const unmatchedRoom = (share: number) => Math.max(Math.floor(args.tokenBudget * share), UNMATCHED_FLOOR);
  const matchRank = args.query ? matchesOf(rows, args.query) : new Map<number, number>();
  const sources = await sourcesOf(
    store,
    rows.map((m) => m.id),
  );
  const state: Filling = { block, left: room, charged: new Set(), sources };
  const instructions = ordered(
    rows.filter((m) => m.kind === 'instruction'),
    matchRank,
  );
  const about = ordered(
    rows.filter((m) => m.kind !== 'instruction'),
    matchRank,
  );
  const pinned = (m: MemoryRow) => m.pinned;
  const matched = (m: MemoryRow) => !m.pinned && matchRank.has(m.id);
  const unmatched = (m: MemoryRow) => !m.pinned && !matchRank.has(m.id);
  fill(state, block.instructions, instructions.filter(pinned), WHAT.instructions);
  fill(state, block.about, about.filter(pinned), WHAT.about);
  fill(state, block.instructions, instructions.filter(matched), WHAT.instructions);
  const unmatchedInstructions = unmatchedRoom(tuning.unmatchedInstructions);
  fill(state, block.instructions, instructions.filter(unmatched), WHAT.instructions, unmatchedInstructions);
  fill(state, block.about, about.filter(matched), WHAT.about);
  fill(state, block.about, about.filter(unmatched), WHAT.about, unmatchedRoom(tuning.unmatchedAbout));
  writeWithin(block, room);
  return block;
}

const WHAT = { instructions: 'standing instructions', about: 'about the user' } as const;
const leftOutLine = (n: number, what: string) => `- (${n} more ${what} not shown)`;

function render(section: StandingSection, what: string): string {
  if (section.items.length === 0 && section.leftOut === 0) return '';
  const lines = [`## ${section.title}`, ...section.items.map((i) => i.line)];
  if (section.leftOut > 0) lines.push(leftOutLine(section.leftOut, what));
  return lines.join('\n');
}

const stem = (word: string) => (word.length > 4 ? word.replace(/(?:ations?|ing|ies|es|s|ed|ly)$/, '') : word);
const contentWords = (text: string) =>
  new Set(
    tokens(text)
      .filter((w) => w.length > 2 && !isStopword(w))
      .map(stem),
  );

/**
 * What the query is about among the standing memories: each memory's words shared with the
 * query, the names of whom it is about left out ("Caroline" in every one of Caroline's), most
 * shared first (1-based ranks).
 */
function matchesOf(rows: MemoryRow[], query: string): Map<number, number> {
  const asked = contentWords(query);
  const scored: { id: number; shared: number }[] = [];
  for (const m of rows) {
    const who = contentWords(`${m.subject ?? ''} user`);
    let shared = 0;
    for (const w of contentWords(m.content)) if (asked.has(w) && !who.has(w)) shared++;
    if (shared > 0) scored.push({ id: m.id, shared });
  }
  scored.sort((a, b) => b.shared - a.shared);
  return new Map(scored.map((s, i) => [s.id, i + 1]));
}

/** Each memory's source turns (oldest first) and the time of the first. */
export async function sourcesOf(
  store: Store,
  memoryIds: number[],
): Promise<Map<number, { turnIds: number[]; firstAt: number }>> {
  const out = new Map<number, { turnIds: number[]; firstAt: number }>();
  if (memoryIds.length === 0) return out;
  for (const row of await store.sql.all<{ memoryId: number; turnId: number; at: number }>(SOURCES, [
    JSON.stringify(memoryIds),
  ])) {
    const entry = out.get(row.memoryId);
    if (entry) entry.turnIds.push(row.turnId);
    else out.set(row.memoryId, { turnIds: [row.turnId], firstAt: row.at });
  }
  return out;
}
