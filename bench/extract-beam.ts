// A BEAM chat folder as a LoCoMo-shaped file, so that bench:extract loads it through the same
// public path (`sm import --format locomo --assistant Assistant`): the user's messages as "User",
// the assistant's as "Assistant", a session per time anchor, messages a minute apart; a message
// longer than a turn may be is cut to that length.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MAX_TURN_TEXT } from '../server/core/turns/turns.ts';
import { loadBeam } from './beam-data.ts';

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** A time as LoCoMo writes session dates: "9:00 am on 15 March, 2024". */
function locomoDate(ms: number): string {
  const d = new Date(ms);
  const hour = d.getUTCHours();
  const minute = String(d.getUTCMinutes()).padStart(2, '0');
  return `${hour % 12 || 12}:${minute} ${hour < 12 ? 'am' : 'pm'} on ${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]}, ${d.getUTCFullYear()}`;
}

/** Writes the chat into `dir`; returns the file, the chat's name and its number of turns. */
export function beamAsLocomo(folder: string, dir: string): { file: string; name: string; turns: number } {
  const chat = loadBeam(folder);
  const conversation: Record<string, unknown> = { speaker_a: 'User', speaker_b: 'Assistant' };
  let turns = 0;
  for (const session of chat.sessions) {
    conversation[`session_${session.index}_date_time`] = locomoDate(session.at);
    conversation[`session_${session.index}`] = session.turns.map((t, i) => ({
      speaker: t.role === 'user' ? 'User' : 'Assistant',
      dia_id: `D${session.index}:${i + 1}`,
      text: t.text.slice(0, MAX_TURN_TEXT),
    }));
    turns += session.turns.length;
  }
  const name = chat.name.replace(/^beam:/, 'beam-');
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify({ conversation }));
  return { file, name, turns };
}
