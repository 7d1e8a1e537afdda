// Reads a LoCoMo conversation file (snap-research/locomo format): for `sm import --format locomo`
// and the benchmarks, which take its path (the data is never copied into the project).
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

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

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

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

const splitIds = (ids: string | string[]) => (Array.isArray(ids) ? ids : ids.split(/[;,\s]+/)).filter((id) => /^D\d+:\d+$/.test(id));

export function loadLocomo(path: string): LocomoConversation {
  const raw = JSON.parse(readFileSync(path, 'utf8'));
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
      turns: turns.map((t: any, i: number) => ({ diaId: t.dia_id, speaker: t.speaker, text: turnText(t), at: at + i * 60_000 })),
    });
  }
  const observationSource = raw.observation ?? data;
  const observations: LocomoObservation[] = [];
  for (const [key, value] of Object.entries(observationSource)) {
    if (!key.endsWith('_observation')) continue;
    for (const [speaker, items] of Object.entries(value as Record<string, [string, string | string[]][]>)) {
      for (const [text, ids] of items) observations.push({ speaker, text, diaIds: splitIds(ids) });
    }
  }
  return {
    name: basename(path, '.json'),
    speakers: [data.speaker_a, data.speaker_b],
    sessions,
    questions: (raw.qa ?? []).map((q: any) => ({ question: q.question, answer: q.answer ?? q.adversarial_answer, evidence: q.evidence ?? [], category: q.category })),
    observations,
  };
}
