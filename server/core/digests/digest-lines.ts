// A session's extractive digest: one line per exchange, the user's request or decision and the
// first thing the answer said, in order. Lines are drawn from the turns when they are read, not
// stored: they follow every new turn of the session, and a forgotten turn takes its line along.
import { DEFAULT_SPACE, spaceClause, type Space } from '../kernel/space.ts';
import type { SqlParam, Store } from '../kernel/store.ts';
import type { TurnRow } from '../turns/turns.ts';
import { answerGist, requestGist } from './gist.ts';

export type DigestLine = {
  sessionId: string;
  /** When the request was said (the user's turn). */
  at: number;
  /** The line without its date: "<request> → <answer>", the request led by its speaker's name when the turn has one. */
  text: string;
  /** The turns whose words the line holds: the user's turn, then the answer's when quoted. */
  turnIds: number[];
};

/** Characters kept of a request and of its answer. */
export type GistLengths = {
  request: number;
  answer: number /** Mark a cut with "…" (a timeline line saves the token). */;
  ellipsis?: boolean;
};
export const FULL_GIST: GistLengths = { request: 180, answer: 110, ellipsis: true };

/** The line of one exchange: a user's turn and the assistant's answer to it, when there is one. */
export function digestLine(turn: TurnRow, reply: TurnRow | null, lengths: GistLengths = FULL_GIST): DigestLine {
  const cut = (gist: string) => (lengths.ellipsis ? gist : gist.replace(/…$/, ''));
  const asked = `${turn.name ? `${turn.name}: ` : ''}${cut(requestGist(turn.text, lengths.request))}`;
  // No room for the answer: the line is the request's alone.
  const answer = reply && lengths.answer > 0 ? cut(answerGist(reply.text, lengths.answer)) : '';
  return {
    sessionId: turn.sessionId,
    at: turn.at,
    text: answer ? `${asked} → ${answer}` : asked,
    turnIds: answer ? [turn.id, reply!.id] : [turn.id],
  };
}

/** Lines of turns in conversation order: each user turn with the assistant turn right after it. */
export function linesOfTurns(turns: TurnRow[], lengths: GistLengths = FULL_GIST): DigestLine[] {
  const out: DigestLine[] = [];
  turns.forEach((turn, i) => {
    if (turn.role !== 'user') return;
    const next = turns[i + 1];
    out.push(digestLine(turn, next && next.role === 'assistant' ? next : null, lengths));
  });
  return out;
}

const SESSION_TURNS = `select t.id as id, t.user_id as userId, t.agent_id as agentId, t.session_id as sessionId, t.role as role, t.name as name, t.text as text, t.at as at,
    t.created_at as createdAt, t.enriched_at as enrichedAt
  from turns t where ${spaceClause(DEFAULT_SPACE, 't').sql} and t.session_id = ? order by t.at, t.id`;

/** The extractive digest of one of the space's sessions (its turns visible in the space). */
export async function sessionDigestLines(store: Store, space: Space, sessionId: string): Promise<DigestLine[]> {
  const turns = await store.sql.all<TurnRow>(SESSION_TURNS, [
    ...(spaceClause(space, 't').params as SqlParam[]),
    sessionId,
  ]);
  return linesOfTurns(turns);
}

// Only the start of a long turn is read: a gist comes from its first sentences (code left out).
const SESSIONS_TURNS = `select t.id as id, t.user_id as userId, t.agent_id as agentId, t.session_id as sessionId, t.role as role, t.name as name,
    substr(t.text, 1, 3000) as text, t.at as at, t.created_at as createdAt, t.enriched_at as enrichedAt
  from turns t where ${spaceClause(DEFAULT_SPACE, 't').sql} and t.session_id = ? order by t.at, t.id limit ?`;

/**
 * The turns (each cut to its first 3,000 characters) of these sessions of the space, in order,
 * session after session as given until `limit` turns are read (a session is read whole or not at all).
 */
export async function turnsOfSessions(
  store: Store,
  space: Space,
  sessionIds: string[],
  limit: number,
): Promise<Map<string, TurnRow[]>> {
  const out = new Map<string, TurnRow[]>();
  let left = limit;
  for (const sessionId of sessionIds) {
    if (left <= 0) break;
    const rows = await store.sql.all<TurnRow>(SESSIONS_TURNS, [
      ...(spaceClause(space, 't').params as SqlParam[]),
      sessionId,
      left + 1,
    ]);
    if (rows.length > left && out.size > 0) break;
    out.set(sessionId, rows.slice(0, left));
    left -= rows.length;
  }
  return out;
}
