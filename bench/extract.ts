// Extraction benchmark: what heuristic extraction keeps, measured through the public path. Each
// conversation goes into a database of its own with `sm import --format locomo` (a BEAM chat folder
// is first written as a LoCoMo-shaped file in a temporary folder: user and assistant turns with
// their dates, the assistant stored as the assistant), and comes back with `sm export`.
//   npm run bench:extract -- [--json] [--labelled FILE] [LOCOMO.json | BEAM_FOLDER]...
// Per conversation: memories per turn (active, reflections and digests aside); for LoCoMo, which
// has observations per turn, coverage (an observation is covered when some memory sourced from its
// turn holds at least half of its content words) and precision (a memory is supported when at
// least half of its content words are in an observation of one of its source turns). Then the
// labelled utterances (test/fixtures/fact-utterances.json by default): precision and recall of
// "extraction keeps something" against "the utterance states a fact". Last, the standing-memory
// phrasings (test/fixtures/standing-phrasings.ts): precision and recall of the kinds saved.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseArgs } from 'node:util';
import { normalizeText } from '../server/core/text/text.ts';
import { loadLocomo, type LocomoConversation } from './locomo-data.ts';
import { runMain } from './run-main.ts';
import { round } from './stats.ts';
import { labelledFigures, type LabelledFigures } from './extract-labelled.ts';
import { beamAsLocomo } from './extract-beam.ts';
import { standingFigures } from './extract-standing.ts';

const run = promisify(execFile);
const SM = join(import.meta.dirname, '..', 'bin', 'sm.js');
const DEFAULT_LABELLED = join(import.meta.dirname, '..', 'test', 'fixtures', 'fact-utterances.json');

const STOPWORDS = new Set(
  'a an the and or but of to in on at for with from by about as is are was were be been being it its this that these those he she they them their her his him i me my we our you your who which what when where how has have had do does did so very also just really not no than then there here into over after before up out some any all can could would should will may might one'.split(
    ' ',
  ),
);

/** Content words, lightly stemmed, so "stories" meets "story" and "attended" meets "attend". */
export function contentTokens(text: string): Set<string> {
  const words = normalizeText(text)
    .split(' ')
    .filter((w) => w && !STOPWORDS.has(w));
  return new Set(words.map((w) => w.replace(/(?:ies|es|s|ed|ing)$/, (m) => (m === 'ies' ? 'y' : '')) || w));
}

/** The share of `part`'s words that are in `whole`. */
const heldIn = (part: Set<string>, whole: Set<string>) => {
  if (part.size === 0) return 0;
  let shared = 0;
  for (const token of part) if (whole.has(token)) shared++;
  return shared / part.size;
};

type Exported = {
  turns: Map<number, { sessionId: string; at: number }>;
  memories: Map<number, { content: string }>;
  sources: Map<number, number[]>;
};

/** `sm import --format locomo FILE` into a new database, then `sm export` of it. */
async function importAndExport(file: string, assistant?: string): Promise<Exported> {
  const dir = mkdtempSync(join(tmpdir(), 'sm-bench-extract-'));
  const db = join(dir, 'bench.db');
  const env = {
    ...process.env,
    SM_LOG_LEVEL: 'error',
    SM_DB: undefined,
    SM_URL: undefined,
    SM_DATABASE_URL: undefined,
  };
  try {
    const args = ['--db', db, 'import', '--format', 'locomo', file, ...(assistant ? ['--assistant', assistant] : [])];
    await run(process.execPath, [SM, ...args], { env, maxBuffer: 64 << 20 });
    const out = join(dir, 'export.jsonl');
    await run(process.execPath, [SM, '--db', db, 'export', '--out', out], { env, maxBuffer: 64 << 20 });
    const exported: Exported = { turns: new Map(), memories: new Map(), sources: new Map() };
    for (const line of readFileSync(out, 'utf8').split('\n')) {
      if (!line) continue;
      const r = JSON.parse(line);
      if (r.type === 'turn') exported.turns.set(r.id, { sessionId: r.sessionId, at: r.at });
      else if (r.type === 'memory' && r.status === 'active' && r.kind !== 'reflection' && r.kind !== 'digest')
        exported.memories.set(r.id, { content: r.content });
      else if (r.type === 'source')
        exported.sources.set(r.memoryId, [...(exported.sources.get(r.memoryId) ?? []), r.turnId]);
    }
    return exported;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export type ConversationFigures = {
  name: string;
  dataset: 'locomo' | 'beam';
  turns: number;
  memories: number;
  memoriesPerTurn: number;
  observations?: number;
  coverage?: number;
  precision?: number;
};

async function benchLocomo(file: string, conversation: LocomoConversation): Promise<ConversationFigures> {
  const exported = await importAndExport(file);
  // The import names sessions "<conversation>:<index>" and dates turns a minute apart: that finds each dialogue id's turn.
  const byKey = new Map([...exported.turns].map(([id, t]) => [`${t.sessionId}@${t.at}`, id]));
  const turnOf = new Map<string, number>();
  for (const session of conversation.sessions)
    for (const turn of session.turns)
      turnOf.set(turn.diaId, byKey.get(`${conversation.name}:${session.index}@${turn.at}`)!);
  const observationsOf = new Map<number, Set<string>[]>();
  for (const o of conversation.observations) {
    for (const id of o.diaIds) {
      const turnId = turnOf.get(id);
      if (turnId !== undefined)
        observationsOf.set(turnId, [...(observationsOf.get(turnId) ?? []), contentTokens(o.text)]);
    }
  }
  const memoryTokens = new Map([...exported.memories].map(([id, m]) => [id, contentTokens(m.content)]));
  const memoriesOf = new Map<number, number[]>();
  for (const [memoryId, turnIds] of exported.sources) {
    if (!exported.memories.has(memoryId)) continue;
    for (const turnId of turnIds) memoriesOf.set(turnId, [...(memoriesOf.get(turnId) ?? []), memoryId]);
  }
  let covered = 0;
  for (const o of conversation.observations) {
    const tokens = contentTokens(o.text);
    const candidates = o.diaIds.flatMap((id) => memoriesOf.get(turnOf.get(id) ?? -1) ?? []);
    if (candidates.some((m) => heldIn(tokens, memoryTokens.get(m)!) >= 0.5)) covered++;
  }
  let supported = 0;
  for (const [memoryId, tokens] of memoryTokens) {
    const observations = (exported.sources.get(memoryId) ?? []).flatMap((turnId) => observationsOf.get(turnId) ?? []);
    if (observations.some((o) => heldIn(tokens, o) >= 0.5)) supported++;
  }
  const turns = turnOf.size;
  return {
    name: conversation.name,
    dataset: 'locomo',
    turns,
    memories: exported.memories.size,
    memoriesPerTurn: exported.memories.size / turns,
    observations: conversation.observations.length,
    coverage: covered / Math.max(1, conversation.observations.length),
    precision: supported / Math.max(1, exported.memories.size),
  };
}

async function benchBeam(folder: string): Promise<ConversationFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'sm-bench-beam-'));
  try {
    const { file, name, turns } = beamAsLocomo(folder, dir);
    const exported = await importAndExport(file, 'Assistant');
    return {
      name,
      dataset: 'beam',
      turns,
      memories: exported.memories.size,
      memoriesPerTurn: exported.memories.size / turns,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchExtract(paths: string[], labelled = DEFAULT_LABELLED) {
  const conversations: ConversationFigures[] = [];
  for (const path of paths) {
    if (statSync(path).isDirectory()) conversations.push(await benchBeam(path));
    else for (const c of loadLocomo(path)) conversations.push(await benchLocomo(path, c));
  }
  const overall = (dataset: 'locomo' | 'beam') => {
    const rows = conversations.filter((c) => c.dataset === dataset);
    if (rows.length === 0) return null;
    const turns = rows.reduce((n, r) => n + r.turns, 0);
    const memories = rows.reduce((n, r) => n + r.memories, 0);
    const observations = rows.reduce((n, r) => n + (r.observations ?? 0), 0);
    return {
      turns,
      memories,
      memoriesPerTurn: memories / turns,
      ...(dataset === 'locomo'
        ? {
            observations,
            coverage: rows.reduce((n, r) => n + r.coverage! * r.observations!, 0) / Math.max(1, observations),
            precision: rows.reduce((n, r) => n + r.precision! * r.memories, 0) / Math.max(1, memories),
          }
        : {}),
    };
  };
  return {
    conversations,
    overall: { locomo: overall('locomo'), beam: overall('beam') },
    labelled: await labelledFigures(labelled),
    standing: await standingFigures(),
  };
}

function table(result: Awaited<ReturnType<typeof benchExtract>>): string {
  const cell = (n: number | undefined) => (n === undefined ? '-' : String(round(n)));
  const lines = ['conversation\tturns\tmemories\tmemories/turn\tobservations\tcoverage\tprecision'];
  for (const c of result.conversations)
    lines.push(
      [
        c.name,
        c.turns,
        c.memories,
        cell(c.memoriesPerTurn),
        c.observations ?? '-',
        cell(c.coverage),
        cell(c.precision),
      ].join('\t'),
    );
  for (const [dataset, o] of Object.entries(result.overall)) {
    if (o)
      lines.push(
        [
          `${dataset} overall`,
          o.turns,
          o.memories,
          cell(o.memoriesPerTurn),
          o.observations ?? '-',
          cell(o.coverage),
          cell(o.precision),
        ].join('\t'),
      );
  }
  const l: LabelledFigures = result.labelled;
  lines.push(
    '',
    'labelled utterances\tn\tfacts\tkept\tprecision\trecall',
    ...Object.entries(l.byStyle).map(([style, f]) =>
      [style, f.n, f.facts, f.kept, cell(f.precision), cell(f.recall)].join('\t'),
    ),
    ['all', l.n, l.facts, l.kept, cell(l.precision), cell(l.recall)].join('\t'),
    '',
    'coverage: observations with a memory sourced from their turn holding >= 50% of their content words;',
    'precision: memories holding >= 50% of their content words in an observation of a source turn (LoCoMo only: BEAM has no observations).',
    'labelled: "kept" = addTurn extracted at least one memory from the utterance; precision = kept that are facts, recall = facts kept.',
  );
  if (l.wrong.length > 0)
    lines.push(
      '',
      'labelled utterances read wrong:',
      ...l.wrong.map((w) => `  ${w.fact ? 'missed' : 'kept  '} [${w.style}] ${w.text.slice(0, 100)}`),
    );
  const s = result.standing;
  lines.push(
    '',
    'standing phrasings\tn\tprecision\trecall',
    ...Object.entries(s.byStyle).map(([style, f]) => [style, f.n, cell(f.precision), cell(f.recall)].join('\t')),
    ['all', s.n, cell(s.precision), cell(s.recall)].join('\t'),
    'standing: test/fixtures/standing-phrasings.ts through addTurn; a phrasing is right when the kind it is labelled with (instruction, preference, profile) is saved, a near miss when no instruction or preference is.',
    ...s.wrong.map(
      (w) => `  wrong: [${w.label ?? 'near miss'} -> ${w.got.join(',') || 'nothing'}] ${w.text.slice(0, 100)}`,
    ),
  );
  return `${lines.join('\n')}\n`;
}

async function main() {
  const { values, positionals } = parseArgs({
    options: { json: { type: 'boolean', default: false }, labelled: { type: 'string' } },
    allowPositionals: true,
  });
  if (positionals.length === 0) {
    process.stderr.write('usage: npm run bench:extract -- [--json] [--labelled FILE] [LOCOMO.json | BEAM_FOLDER]...\n');
    process.exit(2);
  }
  const result = await benchExtract(positionals, values.labelled);
  if (values.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  else process.stdout.write(table(result));
}

if (import.meta.url === `file://${process.argv[1]}`) await runMain(main);
