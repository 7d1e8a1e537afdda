// A database written by the release before memory spaces (test/fixtures/release-0.1.db, made by
// scripts/release-fixture.sh with that release's CLI) opens and upgrades in place: every row
// lands in `default`, nothing is lost, search and history work, and new users sit beside it.
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SPACE } from '../../server/core/kernel/space.ts';
import { initVectors, knnIds } from '../../server/core/vectors/vectors.ts';
import { closeStore, openStore } from '../../server/storage/sqlite/open.ts';
import { sm } from '../helpers/sm-cli.ts';

const FIXTURE = fileURLToPath(new URL('../fixtures/release-0.1.db', import.meta.url));

function copyOfRelease() {
  const path = join(mkdtempSync(join(tmpdir(), 'sm-migrate-')), 'release.db');
  copyFileSync(FIXTURE, path);
  return path;
}

const COUNTS = {
  turns: 8,
  sessions: 3,
  memories: 10,
  entities: 6,
  memory_events: 16,
  memory_sources: 7,
  memory_relations: 2,
  turn_entities: 12,
  memory_entities: 14,
  jobs: 10,
};
const count = (db: Database.Database, table: string) =>
  (db.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n;

describe('upgrading a database of the previous release', () => {
  it('keeps every row, puts it in the default space, and checks clean', async () => {
    const path = copyOfRelease();
    const before = new Database(path, { readonly: true });
    expect(count(before, '__drizzle_migrations')).toBe(4);
    expect(Object.fromEntries(Object.keys(COUNTS).map((t) => [t, count(before, t)]))).toEqual(COUNTS);
    before.close();

    await closeStore(await openStore({ path, env: {} }));
    await closeStore(await openStore({ path, env: {} })); // a second open finds nothing left to do

    const db = new Database(path, { readonly: true });
    expect(Object.fromEntries(Object.keys(COUNTS).map((t) => [t, count(db, t)]))).toEqual(COUNTS);
    for (const table of ['turns', 'sessions', 'memories', 'entities', 'memory_events', 'jobs']) {
      expect(db.prepare(`select distinct user_id from ${table}`).pluck().all(), table).toEqual(['default']);
    }
    expect(db.prepare('select id from users').pluck().all()).toEqual(['default']);
    expect(db.pragma('foreign_key_check')).toEqual([]);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    // The FTS indexes were rebuilt with the user's token beside the text.
    expect(db.prepare("select sql from sqlite_master where name = 'turns_fts'").pluck().get()).toMatch(/space/);
    db.close();
  });

  it('serves the old memory through the CLI, and a new user beside it with the same session ids', async () => {
    const path = copyOfRelease();
    const run = (args: string[]) => sm(['--db', path, ...args]);
    const stats = await run(['stats', '--json']);
    expect(stats.code).toBe(0);
    expect(stats.json).toMatchObject({ turns: 8, sessions: 3, memories: { total: 10, active: 8, archived: 2 } });
    const search = await run(['search', 'where does Dana live', '--kinds', 'fact', '--json']);
    expect(search.json.map((h: any) => h.text)).toContain('Dana Whitfield lives in Lisbon now');
    const why = await run(['explain', '--id', '2', '--json']);
    expect(why.json).toMatchObject({ status: 'ARCHIVED', supersededBy: [{ id: 5 }] });
    const forgotten = await run(['explain', '--id', '10', '--json']);
    expect(forgotten.json.status).toBe('DELETED');
    expect((await run(['show', '--id', '7', '--json'])).json).toMatchObject({
      content: 'Dana is allergic to peanuts',
      protected: true,
      userId: 'default',
    });
    const maria = await run(['entity', 'Maria', '--json']);
    expect(maria.code).toBe(0);
    const session = await run(['session', 'trip-planning', '--json']);
    expect(session.json).toMatchObject({ id: 'trip-planning', userId: 'default', turnCount: 4 });

    // A new user may reuse the session id; the two histories stay apart.
    expect(
      (
        await run([
          '--user',
          'zed',
          'add-turn',
          '--session',
          'trip-planning',
          '--role',
          'user',
          '--text',
          'I live in Oslo',
        ])
      ).code,
    ).toBe(0);
    expect((await run(['--user', 'zed', 'session', 'trip-planning', '--json'])).json.turnCount).toBe(1);
    expect((await run(['session', 'trip-planning', '--json'])).json.turnCount).toBe(4);
    expect((await run(['--user', 'zed', 'search', 'Lisbon', '--json'])).json).toEqual([]);
    expect((await run(['users', '--json'])).json.users.map((u: any) => u.id)).toEqual(['default', 'zed']);
  });

  it('moves vectors of a vec0 table from before spaces into the plain table, under the default user', async () => {
    const path = copyOfRelease();
    const store = await openStore({ path, env: {} });
    if (!store.features.vec) {
      await closeStore(store);
      throw new Error('sqlite-vec must load here: the vector upgrade cannot be checked without it');
    }
    // The release's table shape, with one turn's vector and the locked spec.
    store.sqlite.exec('create virtual table vec_turns using vec0(embedding float[2] distance_metric=cosine)');
    store.sqlite
      .prepare('insert into vec_turns(rowid, embedding) values (?, ?)')
      .run(1n, Buffer.from(new Float32Array([1, 0]).buffer));
    store.sqlite
      .prepare("insert into meta (key, value) values ('embedding', ?)")
      .run(JSON.stringify({ dimensions: 2, model: 'm' }));
    expect((await initVectors(store, { dimensions: 2, model: 'm' })).ready).toBe(true);
    expect(
      store.sqlite.prepare("select sql from sqlite_master where name = 'vec_turns'").pluck().get(),
    ).toBeUndefined();
    expect(store.sqlite.prepare('select id, user_id from turn_vectors').all()).toEqual([{ id: 1, user_id: 'default' }]);
    expect(await knnIds(store, DEFAULT_SPACE, { table: 'turns', vector: new Float32Array([1, 0]), k: 5 })).toEqual([1]);
    expect(
      await knnIds(
        store,
        { userId: 'someone-else', agentId: null },
        { table: 'turns', vector: new Float32Array([1, 0]), k: 5 },
      ),
    ).toEqual([]);
    await closeStore(store);
  });
});
