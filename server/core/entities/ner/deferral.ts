// Accurate NER under load (cheap mode). While more accurate-NER jobs wait than ner.max_backlog,
// a new turn gets the fast pass only (regex, known names, the speaker: most of the links) and no
// job: its accurate pass is deferred, not dropped. The first deferred turn's id is kept in meta,
// and a catch-up job works through the turns from there that no accurate pass has stamped
// (enriched_at), a batch per job (see queueCatchUp). The queue stays bounded whatever the load;
// stats and doctor show the mode and how many turns wait for the catch-up.
import { enqueueJob, JobType, queueLoad } from '../../jobs/jobs.ts';
import { write, type Store } from '../../kernel/store.ts';

const KEY = 'ner.deferred_from';

/** The first turn whose accurate pass was deferred (the catch-up's start), or null. */
export async function deferredFrom(store: Store): Promise<number | null> {
  const value = await store.sql.pluck<string>('select value from meta where key = ?', [KEY]);
  return value === undefined ? null : Number(value);
}

/** True while new turns get the fast pass only: the accurate-NER queue is at its bound. */
export const nerCheapMode = async (store: Store) => (await queueLoad(store)).ner >= store.config.ner.max_backlog;

/** Queues the accurate pass of a turn just written (inside its transaction), or defers it in cheap mode. */
export async function queueAccurateNer(store: Store, turn: { id: number; userId: string }) {
  if (!(await nerCheapMode(store))) {
    await enqueueJob(store, JobType.NerAccurate, { turnId: turn.id, userId: turn.userId });
    return;
  }
  if ((await deferredFrom(store)) !== null) return; // the catch-up already covers it
  // `do nothing`: another process may have started a deferral (and its catch-up) first.
  const started =
    (
      await store.sql.run('insert into meta (key, value) values (?, ?) on conflict (key) do nothing', [
        KEY,
        JSON.stringify(turn.id),
      ])
    ).changes > 0;
  if (started) await enqueueJob(store, JobType.NerCatchUp, {});
}

/**
 * Queues the next catch-up batch while deferred turns wait and none is queued. Called after
 * every accurate-NER run: each catch-up batch is a job of its own, taking its turn with the
 * others (fresh turns first while the queue is long), and a catch-up that failed for good is
 * started again by the next run.
 */
export async function queueCatchUp(store: Store) {
  await write(store, async () => {
    if ((await deferredFrom(store)) === null) return;
    const queued = await store.sql.pluck("select 1 from jobs where status = 'pending' and type = ? limit 1", [
      JobType.NerCatchUp,
    ]);
    if (!queued) await enqueueJob(store, JobType.NerCatchUp, {});
  });
}

/**
 * The next `limit` deferred turns no accurate pass has stamped, oldest first. When none is left
 * the deferral ends, in the same write, so a turn deferred meanwhile starts a new one.
 */
export function nextDeferredTurns(store: Store, limit: number): Promise<number[]> {
  return write(store, async () => {
    const from = await deferredFrom(store);
    if (from === null) return [];
    const rows = await store.sql.values(
      'select id from turns where id >= ? and enriched_at is null order by id limit ?',
      [from, limit],
    );
    const ids = rows.map((row) => row[0] as number);
    if (ids.length === 0) await store.sql.run('delete from meta where key = ?', [KEY]);
    // Every turn before the first unstamped one is done: the next scan starts there.
    else if (ids[0]! > from)
      await store.sql.run('update meta set value = ? where key = ?', [JSON.stringify(ids[0]), KEY]);
    return ids;
  });
}

/** Turns waiting for the catch-up: one user's, or all (null). */
const DEFERRED_COUNT = 'select count(*) from turns where id >= ? and enriched_at is null';
const DEFERRED_COUNT_OF_USER = `${DEFERRED_COUNT} and user_id = ?`;

export async function deferredTurnCount(store: Store, userId: string | null): Promise<number> {
  const from = await deferredFrom(store);
  if (from === null) return 0;
  const count =
    userId === null
      ? await store.sql.pluck<number>(DEFERRED_COUNT, [from])
      : await store.sql.pluck<number>(DEFERRED_COUNT_OF_USER, [from, userId]);
  return count ?? 0;
}
