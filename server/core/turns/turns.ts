// Turns are the episodic layer (docs/architecture.md#turns). The short-term context is the last N turns of a session;
// older turns leave the window but stay searchable history.
import { eq, inArray } from 'drizzle-orm';
import { z } from 'zod';
import { turns } from '../../../drizzle/schema.ts';
import { ROLES } from '../../../drizzle/vocabulary.ts';
import { enqueueJob, JOB_DEFAULTS, JOB_OF_TURN, jobColumnCount, jobQueued, type JobType } from '../jobs/jobs.ts';
import { decodeEntity, entityColumnCount, SPEAKER_ENTITY, type EntityRow } from '../entities/entities.ts';
import { entityKey, EntityType } from '../entities/types.ts';
import { rowCodec } from '../kernel/rows.ts';
import { ensureSession } from './sessions.ts';
import { DEFAULT_SPACE, spaceClause, visibleIn, type Space } from '../kernel/space.ts';
import { NEW_ROWS, noted, publish, write, type SqlParam, type Store } from '../kernel/store.ts';
import { recordTurnDates } from './turn-dates.ts';
import { ensureUser, userPresent } from '../users/users.ts';
import { parseInput } from '../kernel/validation.ts';

export type TurnRow = typeof turns.$inferSelect;

const turnRows = rowCodec(turns);
const turnColumnCount = turnRows.columns.split(', ').length;

/** A turn's text is stored whole up to this many characters (string length); longer is refused, nothing stored. */
export const MAX_TURN_TEXT = 1_000_000;

/** A session id as every entry point takes it: what addTurn refuses, context refuses too. */
export const sessionIdSchema = z.string().trim().min(1, 'must not be empty').max(200);

export const addTurnSchema = z.object({
  sessionId: sessionIdSchema,
  role: z.enum(ROLES, { error: `must be one of ${ROLES.join(', ')}` }),
  name: z.string().trim().min(1).max(100).nullish(),
  text: z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(MAX_TURN_TEXT, `at most ${MAX_TURN_TEXT.toLocaleString('en')} characters`),
  autoExtract: z.boolean().default(true),
  /** When the turn happened (epoch ms); defaults to now. Lets history be imported. */
  at: z.number().int().nonnegative().nullish(),
});
export type AddTurnInput = z.input<typeof addTurnSchema>;
/** An AddTurnInput as addTurnSchema made it (trimmed, defaults filled in). */
export type ParsedTurn = z.output<typeof addTurnSchema>;

/** Things that run inside the addTurn transaction after the row is written (extraction, NER...). */
/** `speaker`: the speaker's entity, when the turn's statement read it and there is one (Postgres). */
export type TurnHook<R> = (
  store: Store,
  turn: TurnRow,
  options: { autoExtract: boolean; newSession: boolean; speaker?: EntityRow },
) => R | Promise<R>;

const INSERT_TURN = `insert into turns (user_id, agent_id, session_id, role, name, text, at, created_at) values (?, ?, ?, ?, ?, ?, ?, ?) returning ${turnRows.columns}`;
/**
 * Postgres registers the session or moves its times (ensureSession's work) and inserts the turn
 * in one statement, a round trip saved on every turn; the last column says whether the session
 * is new. The turn's foreign key to its session is checked at the statement's end.
 */
const SESSION_OF_TURN = `session as (
    insert into sessions (user_id, id, first_seen_at, last_seen_at) values (?, ?, ?, ?)
    on conflict (user_id, id) do update set last_seen_at = greatest(sessions.last_seen_at, excluded.last_seen_at),
      first_seen_at = least(sessions.first_seen_at, excluded.first_seen_at), consolidated_at = null
    returning xmax = 0 as created)`;
/**
 * The statement for each shape: the turn and its session, then the job's columns when a job goes
 * with it, then the speaker's entity's (SPEAKER_ENTITY, null when unknown) when asked for.
 */
const turnStatements = new Map<string, string>();
function turnStatement(job: boolean, speaker: boolean): string {
  const key = `${job} ${speaker}`;
  let text = turnStatements.get(key);
  if (text === undefined) {
    const ctes = [
      SESSION_OF_TURN,
      `turn as (${INSERT_TURN}, (select created from session) as created)`,
      ...(job ? [`job as (${JOB_OF_TURN})`] : []),
      ...(speaker ? [SPEAKER_ENTITY] : []),
    ];
    text = `with ${ctes.join(', ')} select * from turn${job ? ' cross join job' : ''}${speaker ? ' left join speaker on true' : ''}`;
    turnStatements.set(key, text);
  }
  return text;
}

export type AddTurnOptions<R> = {
  /** Runs in the same transaction once the row is written. */
  afterInsert?: TurnHook<R>;
  /** A job about the turn (payload `{turnId, userId}`) queued with it, by the same statement on Postgres. */
  job?: JobType;
  /** On Postgres that statement also reads the speaker's entity, for `afterInsert` (entity linking needs it: a round trip saved). */
  readSpeaker?: boolean;
};

/** Stores one turn in `space` (registering its user and session), with what `options` adds in the same transaction. */
export function addTurn<R>(store: Store, space: Space, input: AddTurnInput, options: AddTurnOptions<R> = {}) {
  return addParsedTurn(store, space, parseInput(addTurnSchema, input), options);
}

/** addTurn of input its caller parsed with addTurnSchema already: a turn's text is not parsed twice. */
export async function addParsedTurn<R>(
  store: Store,
  space: Space,
  parsed: ParsedTurn,
  options: AddTurnOptions<R> = {},
) {
  const { afterInsert, job: turnJob, readSpeaker = false } = options;
  return write(store, async () => {
    const now = store.clock.now();
    const at = parsed.at ?? now;
    const values = [
      space.userId,
      space.agentId,
      parsed.sessionId,
      parsed.role,
      parsed.name ?? null,
      parsed.text,
      at,
      now,
    ];
    let newSession: boolean;
    let inserted: unknown[];
    let jobRow: unknown[] | undefined;
    let speaker: EntityRow | undefined;
    if (store.dialect.statements.combinesWrites) {
      const speakerKey = readSpeaker && parsed.name ? entityKey(parsed.name, EntityType.Person) : '';
      const params = [space.userId, parsed.sessionId, at, at, ...values];
      if (turnJob) params.push(turnJob, now, JOB_DEFAULTS.maxAttempts, now, now);
      if (speakerKey) params.push(space.userId, speakerKey);
      const row = (await store.sql.row(turnStatement(!!turnJob, !!speakerKey), params))!;
      const turnEnd = turnColumnCount + 1;
      newSession = row[turnEnd - 1] === 1;
      inserted = row.slice(0, turnEnd - 1);
      const jobEnd = turnEnd + (turnJob ? jobColumnCount : 0);
      if (turnJob) jobRow = row.slice(turnEnd, jobEnd);
      if (speakerKey && row[jobEnd] !== null) speaker = decodeEntity(row.slice(jobEnd, jobEnd + entityColumnCount));
    } else {
      newSession = await ensureSession(store, space, parsed.sessionId, at);
      inserted = (await store.sql.row(INSERT_TURN, values))!;
    }
    // A session that existed has its user: sessions go only with their user (forgetUser).
    if (newSession) await ensureUser(store, space.userId);
    else userPresent(store, space.userId);
    const turn = turnRows.decode(inserted);
    noted(store, NEW_ROWS.turns)!.add(turn.id);
    await recordTurnDates(store, turn);
    publish(store, {
      type: 'turn',
      turnId: turn.id,
      sessionId: turn.sessionId,
      userId: turn.userId,
      agentId: turn.agentId,
      at: now,
    });
    if (jobRow) jobQueued(store, jobRow);
    else if (turnJob) await enqueueJob(store, turnJob, { turnId: turn.id, userId: turn.userId });
    const extra: R | undefined = afterInsert
      ? await afterInsert(store, turn, { autoExtract: parsed.autoExtract, newSession, speaker })
      : undefined;
    return { turn, newSession, extra };
  });
}

// The window of every context: raw rows (kernel/rows.ts), the statement text the same for every space.
const WINDOW = `select ${turnRows.columnsOf('t')} from turns t where ${spaceClause(DEFAULT_SPACE, 't').sql} and t.session_id = ?
  order by t.at desc, t.id desc limit ?`;

/** The short-term window: the last `size` turns of the session (those this space sees), oldest first. */
export async function shortTermWindow(
  store: Store,
  space: Space,
  sessionId: string,
  size = store.config.short_term.size,
): Promise<TurnRow[]> {
  const newestFirst = await store.sql.values(WINDOW, [
    ...(spaceClause(space, 't').params as SqlParam[]),
    sessionId,
    size,
  ]);
  return newestFirst.reverse().map((raw) => turnRows.decode(raw));
}

/** A turn by id, whatever its space: for work derived from the turn itself (jobs). */
export async function getTurn(store: Store, id: number): Promise<TurnRow | undefined> {
  return store.db.select().from(turns).where(eq(turns.id, id)).get();
}

/** A turn of this space, or undefined (another space's counts as none). */
export async function turnIn(store: Store, space: Space, id: number): Promise<TurnRow | undefined> {
  const turn = await getTurn(store, id);
  return turn && visibleIn(space, turn) ? turn : undefined;
}

export async function turnsByIds(store: Store, ids: readonly number[]): Promise<Map<number, TurnRow>> {
  const rows = await store.db
    .select()
    .from(turns)
    .where(inArray(turns.id, [...ids]));
  return new Map(rows.map((row) => [row.id, row]));
}
