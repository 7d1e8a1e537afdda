// Reads a BEAM conversation folder (mohammadtavakoli78/BEAM format: chat.json and
// probing_questions.json) for the benchmarks, which take its path (the data is never copied into
// the project). A user working with an assistant over weeks: each message becomes a turn with its
// role; a message's time_anchor dates it and the messages after it, and opens a new session.
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { BenchConversation, BenchSession } from './bench-conversation.ts';
import { MONTH_NAMES as MONTHS } from '../server/core/text/time-readings.ts';

type BeamMessage = { role?: unknown; id?: unknown; content?: unknown; time_anchor?: unknown };

/** "March-15-2024" as UTC epoch ms (09:00, a working morning). */
export function parseBeamAnchor(text: string): number {
  const m = text.trim().match(/^([a-z]+)-(\d{1,2})-(\d{4})$/i);
  const month = m ? MONTHS.indexOf(m[1]!.toLowerCase()) : -1;
  if (!m || month < 0) throw new Error(`unrecognised BEAM time anchor: ${text}`);
  return Date.UTC(Number(m[3]), month, Number(m[2]), 9);
}

/** The generator's bookkeeping at a message's end (" ->-> 1,1"), not part of what was said. */
export const stripMarker = (text: string) => text.replace(/\s*->->\s*[\d,\s]*$/, '').trim();

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
    throw new Error(`${path}: ${reason}`);
  }
}

/** Every message id in source_chat_ids: a list (nested lists too) or an object of lists. */
export function evidenceIds(value: unknown): string[] {
  if (value === null || value === undefined) return [];
  if (typeof value === 'number' || typeof value === 'string') return [String(value)];
  const items = Array.isArray(value) ? value : typeof value === 'object' ? Object.values(value) : [];
  return [...new Set(items.flatMap(evidenceIds))];
}

function sessionsOf(chat: unknown, name: string): BenchSession[] {
  if (!Array.isArray(chat)) throw new Error(`${name}: chat.json is not a list of batches`);
  const messages: BeamMessage[] = chat.flatMap((batch) => (Array.isArray(batch?.turns) ? batch.turns.flat() : []));
  // Messages before the first anchor take its date.
  const first = messages.find((m) => typeof m.time_anchor === 'string');
  if (!first) throw new Error(`${name}: no time_anchor in chat.json: not a BEAM chat`);
  const sessions: BenchSession[] = [];
  let at = parseBeamAnchor(first.time_anchor as string);
  for (const message of messages) {
    if (typeof message.time_anchor === 'string' || sessions.length === 0) {
      if (typeof message.time_anchor === 'string') at = parseBeamAnchor(message.time_anchor);
      sessions.push({ index: sessions.length + 1, at, turns: [] });
    }
    if (message.role !== 'user' && message.role !== 'assistant')
      throw new Error(`${name}: message ${String(message.id)} has role ${String(message.role)}`);
    const text = typeof message.content === 'string' ? stripMarker(message.content) : '';
    // A minute apart, so order is kept and each message has its own time.
    if (text) sessions.at(-1)!.turns.push({ id: String(message.id), role: message.role, text, at: (at += 60_000) });
  }
  return sessions.filter((s) => s.turns.length > 0);
}

/** One BEAM chat folder as a benchmark conversation; questions without evidence (abstention) are kept with none. */
export function loadBeam(dir: string): BenchConversation {
  const name = `beam:${basename(dir.replace(/\/+$/, ''))}`;
  const chatPath = join(dir, 'chat.json');
  if (!existsSync(chatPath)) throw new Error(`${dir}: no chat.json: not a BEAM chat folder`);
  const sessions = sessionsOf(readJson(chatPath), name);
  const probing = readJson(join(dir, 'probing_questions.json'));
  if (!probing || typeof probing !== 'object' || Array.isArray(probing))
    throw new Error(`${name}: probing_questions.json is not an object of abilities`);
  const questions = Object.entries(probing as Record<string, unknown>).flatMap(([ability, list]) =>
    (Array.isArray(list) ? list : []).map((q: { question?: unknown; source_chat_ids?: unknown }) => ({
      text: String(q.question ?? ''),
      category: ability,
      evidence: evidenceIds(q.source_chat_ids),
    })),
  );
  return { name, dataset: 'beam', sessions, questions };
}
