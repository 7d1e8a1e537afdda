// Accurate NER under load (cheap mode). While more accurate-NER jobs wait than ner.max_backlog,
// a new turn gets the fast pass only (regex, known names, the speaker: most of the links) and no
// job: its accurate pass is deferred, not dropped. The first deferred turn's id is kept in meta,
// and a catch-up job works through the turns from there that no accurate pass has stamped
// (enriched_at), a batch per job (see queueCatchUp). The queue stays bounded whatever the load;
// stats and doctor show the mode and how many turns wait for the catch-up.
import { enqueueJob, JobType, queueLoad } from '../jobs.ts';
import { prepared, write, type Store } from '../store.ts';

const KEY = 'ner.deferred_from';

/** The first turn whose accurate pass was deferred (the catch-up's start), or null. */
export function deferredFrom(store: Store): number | null {
  const value = prepared(store, 'ner.deferredFrom', () => store.sqlite.prepare('select value from meta where key = ?').pluck()).get(KEY) as string | undefined;
  return value === undefined ? null : Number(value);
}

/** True while new turns get the fast pass only: the accurate-NER queue is at its bound. */
export const nerCheapMode = (store: Store) => queueLoad(store).ner >= store.config.ner.max_backlog;

/** Queues the accurate pass of a turn just written (inside its transaction), or defers it in cheap mode. */
export function queueAccurateNer(store: Store, turn: { id: number; userId: string }) {
  if (!nerCheapMode(store)) {
    enqueueJob(store, JobType.NerAccurate, { turnId: turn.id, userId: turn.userId });
    return;
  }
  if (deferredFrom(store) !== null) return; // the catch-up already covers it
  // `or ignore`: another process may have started a deferral (and its catch-up) first.
  const started = store.sqlite.prepare('insert or ignore into meta (key, value) values (?, ?)').run(KEY, JSON.stringify(turn.id)).changes > 0;
  if (started) enqueueJob(store, JobType.NerCatchUp, {});
}

/**
 * Queues the next catch-up batch while deferred turns wait and none is queued. Called after
 * every accurate-NER run: each catch-up batch is a job of its own, taking its turn with the
 * others (fresh turns first while the queue is long), and a catch-up that failed for good is
 * started again by the next run.
 */
export function queueCatchUp(store: Store) {
  write(store, () => {
    if (deferredFrom(store) === null) return;
    const queued = prepared(store, 'ner.catchUpQueued', () => store.sqlite.prepare("select 1 from jobs where status = 'pending' and type = ? limit 1").pluck()).get(JobType.NerCatchUp);
    if (!queued) enqueueJob(store, JobType.NerCatchUp, {});
  });
}

/**
 * The next `limit` deferred turns no accurate pass has stamped, oldest first. When none is left
 * the deferral ends, in the same write, so a turn deferred meanwhile starts a new one.
 */
export function nextDeferredTurns(store: Store, limit: number): number[] {
  return write(store, () => {
    const from = deferredFrom(store);
    if (from === null) return [];
    const ids = store.sqlite.prepare('select id from turns where id >= ? and enriched_at is null order by id limit ?').pluck().all(from, limit) as number[];
    if (ids.length === 0) store.sqlite.prepare('delete from meta where key = ?').run(KEY);
    // Every turn before the first unstamped one is done: the next scan starts there.
    else if (ids[0]! > from) store.sqlite.prepare('update meta set value = ? where key = ?').run(JSON.stringify(ids[0]), KEY);
    return ids;
  });
}

/** Turns waiting for the catch-up: one user's, or all (null). */
export function deferredTurnCount(store: Store, userId: string | null): number {
  const from = deferredFrom(store);
  if (from === null) return 0;
  const sql = `select count(*) from turns where id >= ? and enriched_at is null${userId === null ? '' : ' and user_id = ?'}`;
  return store.sqlite.prepare(sql).pluck().get(...(userId === null ? [from] : [from, userId])) as number;
}
