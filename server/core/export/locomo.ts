// Reads a LoCoMo conversation file (snap-research/locomo format): for `sm import --format locomo`
// and the benchmarks, which take its path (the data is never copied into the project).
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { MONTH_NAMES as MONTHS } from '../text/time-readings.ts';

export type LocomoTurn = { diaId: string; speaker: string; text: string; at: number };
export type LocomoSession = { index: number; at: number; turns: LocomoTurn[] };
export type LocomoQuestion = { question: string; answer: unknown; evidence: string[]; category: number };
export type LocomoObservation = { speaker: string; text: string; diaIds: string[] };
export type LocomoConversation = {
  name: string;
  speakers: [string, string];
  sessions: LocomoSession[];
  questions: LocomoQuestion[];
  observations: LocomoObservation[];
};

/** "1:56 pm on 8 May, 2023" as UTC epoch ms. */
export function parseLocomoDate(text: string): number {
  const m = text.trim().match(/^(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([a-z]+),?\s+(\d{4})$/i);
  if (!m) throw new Error(`unrecognised LoCoMo date: ${text}`);
  const hour = (Number(m[1]) % 12) + (m[3]!.toLowerCase() === 'pm' ? 12 : 0);
  const month = MONTHS.indexOf(m[5]!.toLowerCase());
  if (month < 0) throw new Error(`unrecognised month in ${text}`);
  return Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2]));
}

/** Image turns carry a caption; a chat app would send it as the image's alt text. */
const turnText = (turn: { text: string; blip_caption?: string }) =>
  turn.blip_caption ? `${turn.text} [image: ${turn.blip_caption}]` : turn.text;

/**
 * Dialogue ids from a list or one string, as the data set writes them: "D8:6; D9:17" in one item,
 * "D:11:26" for D11:26. Anything else names no turn and is dropped.
 */
export const parseDiaIds = (ids: string | string[]) =>
  (Array.isArray(ids) ? ids : [ids]).flatMap((item) =>
    [...String(item).matchAll(/\bD:?(\d+):(\d+)\b/g)].map((m) => `D${Number(m[1])}:${Number(m[2])}`),
  );

/**
 * The conversations in a file: one conversation (as split out per file) or the data set's own
 * locomo10.json, an array of them (named after the file and each one's sample_id).
 */
export function loadLocomo(path: string): LocomoConversation[] {
  const name = basename(path, '.json');
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
    throw new Error(`${path}: ${reason}`);
  }
  if (!Array.isArray(raw)) return [parseConversation(raw, name)];
  return raw.map((item, i) => parseConversation(item, `${name}:${item?.sample_id ?? i + 1}`));
}

function parseConversation(raw: any, name: string): LocomoConversation {
  if (!raw || typeof raw !== 'object') throw new Error(`${name}: not a LoCoMo conversation`);
  const data = raw.conversation ?? raw;
  const sessions: LocomoSession[] = [];
  for (let index = 1; Array.isArray(data[`session_${index}`]) || data[`session_${index}_date_time`]; index++) {
    const turns = data[`session_${index}`];
    if (!Array.isArray(turns) || turns.length === 0) continue;
    const at = parseLocomoDate(data[`session_${index}_date_time`]);
    sessions.push({
      index,
      at,
      // A minute apart, so turn order is kept and each turn has its own time.
      turns: turns.map((t: any, i: number) => ({
        diaId: t.dia_id,
        speaker: t.speaker,
        text: turnText(t),
        at: at + i * 60_000,
      })),
    });
  }
  if (sessions.length === 0)
    throw new Error(`${name}: no sessions (session_1, session_1_date_time, ...): not a LoCoMo conversation`);
  const observationSource = raw.observation ?? data;
  const observations: LocomoObservation[] = [];
  for (const [key, value] of Object.entries(observationSource)) {
    if (!key.endsWith('_observation')) continue;
    for (const [speaker, items] of Object.entries(value as Record<string, [string, string | string[]][]>)) {
      for (const [text, ids] of items) observations.push({ speaker, text, diaIds: parseDiaIds(ids) });
    }
  }
  return {
    name,
    speakers: [data.speaker_a, data.speaker_b],
    sessions,
    questions: (raw.qa ?? []).map((q: any) => ({
      question: q.question,
      answer: q.answer ?? q.adversarial_answer,
      evidence: parseDiaIds(q.evidence ?? []),
      category: q.category,
    })),
    observations,
  };
}
