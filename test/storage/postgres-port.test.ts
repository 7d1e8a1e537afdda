// The storage port on Postgres (docs/architecture.md#store-port), on both ways of running it: PGlite in memory and a real
// server started from Debian's binaries (test/helpers/postgres-server.ts; missing binaries fail
// here, they do not skip). The domain's own SQL (drizzle's SQLite builder over drizzle/schema.ts,
// raw SQL with `?`) must run unchanged and read back as it does on SQLite; write() must keep
// SQLite's transaction semantics.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { and, asc, desc, eq, getTableName, is, sql } from 'drizzle-orm';
import { PgTable } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import * as pgTables from '../../drizzle/pg-schema.ts';
import * as t from '../../drizzle/schema.ts';
import {
  hearOtherNodes,
  onChange,
  publish,
  write,
  writeIfFree,
  type ChangeEvent,
  type Store,
} from '../../server/core/kernel/store.ts';
import { closeStore } from '../../server/storage/sqlite/open.ts';
import { openSnapshot } from '../../server/storage/sqlite/snapshot.ts';
import { openPostgresStore } from '../../server/storage/postgres/open-postgres.ts';
import { toPostgresSql } from '../../server/storage/postgres/sql-text.ts';
import { startPostgresServer, type PostgresServer } from '../helpers/postgres-server.ts';

const MIGRATIONS = JSON.parse(
  readFileSync(join(import.meta.dirname, '../../drizzle/pg-migrations/meta/_journal.json'), 'utf8'),
).entries.length;
const TABLES = (Object.values(pgTables) as unknown[])
  .filter((table) => is(table, PgTable))
  .map((table) => `"${getTableName(table as PgTable)}"`);
const NOW = 1_795_000_000_123; // epoch ms past 2^32: must come back as the same number

let server: PostgresServer | undefined;
let databases = 0;
afterAll(() => server?.stop());

type Backend = { name: string; url: () => Promise<string>; shared: boolean };
const backends: Backend[] = [
  { name: 'PGlite in memory', url: async () => 'pglite:', shared: false },
  {
    name: 'a Postgres server',
    url: async () => {
      server ??= await startPostgresServer();
      return server.createDatabase(`port_${++databases}`);
    },
    shared: true,
  },
];

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('rewriting the shared SQL for Postgres', () => {
  it('numbers ? parameters, leaving the ones in strings, quoted names and comments', () => {
    expect(toPostgresSql("select ?, '?', 'it''s ?', \"a?b\" from t where x = ? -- why?\n and y = ? /* ? */")).toBe(
      "select $1, '?', 'it''s ?', \"a?b\" from t where x = $2 -- why?\n and y = $3 /* ? */",
    );
    expect(toPostgresSql('select ?2, ?1, ?')).toBe('select $2, $1, $3');
  });

  it("drops the table from drizzle's upsert targets, which Postgres refuses", () => {
    expect(
      toPostgresSql(
        'insert into "s" ("a", "b") values (?, ?) on conflict ("s"."a", "s"."b") do update set "b" = "s"."b" + 1',
      ),
    ).toBe('insert into "s" ("a", "b") values ($1, $2) on conflict ("a", "b") do update set "b" = "s"."b" + 1');
  });

  it('quotes mixed-case aliases (Postgres would fold them), and nothing else', () => {
    expect(
      toPostgresSql(
        "select user_id as userId, t.createdAt, COUNT(*) as n, 'camelCase' from `turns` t order by userId limit 1e3",
      ),
    ).toBe(
      `select user_id as "userId", t."createdAt", COUNT(*) as n, 'camelCase' from "turns" t order by "userId" limit 1e3`,
    );
  });
});

it('an unreachable server fails the open with its host, port and database, never its password', async () => {
  const closed = await import('node:net').then(
    ({ createServer }) =>
      new Promise<number>((resolve) => {
        const probe = createServer().listen(0, '127.0.0.1', () => {
          const { port } = probe.address() as { port: number };
          probe.close(() => resolve(port));
        });
      }),
  );
  const failure = await openPostgresStore({
    url: `postgres://sm:s3cret-Pa55@127.0.0.1:${closed}/memories`,
    env: {},
  }).catch((error: Error) => error);
  expect(failure).toBeInstanceOf(Error);
  const { message } = failure as Error;
  expect(message).toContain('127.0.0.1');
  expect(message).toContain(String(closed));
  expect(message).toContain('"memories"');
  expect(message).not.toContain('s3cret');
  expect(JSON.stringify(failure)).not.toContain('s3cret');
  const malformed = await openPostgresStore({ url: 'postgres://sm:s3cret-Pa55@[bad', env: {} }).catch(
    (error: Error) => error,
  );
  expect((malformed as Error).message).toMatch(/not valid/);
  expect(JSON.stringify(malformed) + String(malformed)).not.toContain('s3cret');
});

describe.each(backends)('the storage port on $name', ({ url: newUrl, shared }) => {
  let url: string;
  let store: Store;
  beforeAll(async () => {
    url = await newUrl();
    store = await openPostgresStore({ url, env: {} });
  }, 60_000);
  afterAll(() => store && closeStore(store));
  beforeEach(() => store.sql.run(`truncate ${TABLES.join(', ')} restart identity cascade`));

  const addTurn = (text: string, at = NOW) =>
    write(store, async () => {
      await store.db.insert(t.users).values({ id: 'u1', createdAt: at }).onConflictDoNothing();
      await store.db
        .insert(t.sessions)
        .values({ userId: 'u1', id: 's1', firstSeenAt: at, lastSeenAt: at })
        .onConflictDoUpdate({ target: [t.sessions.userId, t.sessions.id], set: { lastSeenAt: at } });
      return store.db
        .insert(t.turns)
        .values({ userId: 'u1', sessionId: 's1', role: 'user', text, at, createdAt: at })
        .returning()
        .get();
    });

  it('applies the migrations, and opening again finds nothing to do', async () => {
    expect(await store.sql.pluck('select count(*) from drizzle.__drizzle_migrations')).toBe(MIGRATIONS);
    expect(store.features.fts).toBe(true);
    const vectorAvailable = await store.sql.pluck("select count(*) from pg_available_extensions where name = 'vector'");
    expect(store.features.vec).toBe(vectorAvailable === 1);
    if (!shared) {
      // An in-memory PGlite cannot be opened twice: the same on disk, closed and opened again.
      const folder = mkdtempSync(join(tmpdir(), 'sm-pglite-'));
      const dir = `pglite:${folder}`;
      const first = await openPostgresStore({ url: dir, env: {} });
      await first.sql.run("insert into meta (key, value) values ('kept', '1')");
      await closeStore(first);
      const again = await openPostgresStore({ url: dir, env: {} });
      expect(await again.sql.pluck("select value from meta where key = 'kept'")).toBe('1');
      expect(await again.sql.pluck('select count(*) from drizzle.__drizzle_migrations')).toBe(MIGRATIONS);
      await closeStore(again);
      rmSync(folder, { recursive: true, force: true });
    } else {
      // Two processes opening one database at once: the setup lock lets one migrate at a time.
      const [a, b] = await Promise.all([openPostgresStore({ url, env: {} }), openPostgresStore({ url, env: {} })]);
      expect(await a.sql.pluck('select count(*) from drizzle.__drizzle_migrations')).toBe(MIGRATIONS);
      await Promise.all([closeStore(a), closeStore(b)]);
    }
  }, 60_000);

  it('runs drizzle inserts with returning, selects with where, order and limit, updates and deletes', async () => {
    const first = await addTurn('first words', NOW);
    const second = await addTurn('second words', NOW + 1);
    expect(first).toMatchObject({ id: 1, userId: 'u1', agentId: null, at: NOW, createdAt: NOW, enrichedAt: null });
    expect(typeof first.at).toBe('number');
    expect(second.id).toBe(2);

    const newest = await store.db
      .select()
      .from(t.turns)
      .where(eq(t.turns.userId, 'u1'))
      .orderBy(desc(t.turns.at))
      .limit(1);
    expect(newest.map((turn) => turn.text)).toEqual(['second words']);
    const one = await store.db
      .select({ id: t.turns.id, text: t.turns.text })
      .from(t.turns)
      .where(and(eq(t.turns.sessionId, 's1'), eq(t.turns.id, 1)))
      .get();
    expect(one).toEqual({ id: 1, text: 'first words' });
    expect(await store.db.select().from(t.turns).where(eq(t.turns.id, 99)).get()).toBeUndefined();

    const updated = await write(store, () =>
      store.db
        .update(t.turns)
        .set({ enrichedAt: NOW + 5 })
        .where(eq(t.turns.userId, 'u1'))
        .run(),
    );
    expect(updated.changes).toBe(2);
    expect(
      (await store.db.select({ at: t.turns.enrichedAt }).from(t.turns).orderBy(asc(t.turns.id))).map((r) => r.at),
    ).toEqual([NOW + 5, NOW + 5]);

    const deleted = await write(store, () =>
      store.db.delete(t.turns).where(eq(t.turns.id, 1)).returning({ id: t.turns.id }),
    );
    expect(deleted).toEqual([{ id: 1 }]);
    // Cascades: deleting the session takes its turns.
    await write(store, () => store.db.delete(t.sessions).where(eq(t.sessions.id, 's1')));
    expect(await store.sql.pluck('select count(*) from turns')).toBe(0);
    // A numbered row given its id explicitly moves the sequence past it, as SQLite does.
    await addTurn('again');
    await write(store, () =>
      store.db
        .insert(t.turns)
        .values({ id: 50, userId: 'u1', sessionId: 's1', role: 'user', text: 'imported', at: NOW, createdAt: NOW }),
    );
    expect((await addTurn('after the import')).id).toBe(51);
  });

  it('upserts with on conflict do update and do nothing', async () => {
    const entity = (mentions: number) =>
      write(store, () =>
        store.db
          .insert(t.entities)
          .values({
            userId: 'u1',
            name: 'Dana',
            nameKey: 'dana',
            type: 'person',
            mentionCount: mentions,
            createdAt: NOW,
            updatedAt: NOW,
          })
          .onConflictDoUpdate({
            target: [t.entities.userId, t.entities.nameKey, t.entities.type],
            set: { mentionCount: sql`${t.entities.mentionCount} + 1`, updatedAt: NOW + 1 },
          })
          .returning({ id: t.entities.id, mentionCount: t.entities.mentionCount })
          .get(),
      );
    expect(await entity(1)).toEqual({ id: 1, mentionCount: 1 });
    expect(await entity(1)).toEqual({ id: 1, mentionCount: 2 });
    const ignored = await write(store, () =>
      store.db.insert(t.users).values({ id: 'u9', createdAt: 1 }).onConflictDoNothing().run(),
    );
    const again = await write(store, () =>
      store.db.insert(t.users).values({ id: 'u9', createdAt: 2 }).onConflictDoNothing().run(),
    );
    expect([ignored.changes, again.changes]).toEqual([1, 0]);
    expect(await store.sql.pluck("select created_at from users where id = 'u9'")).toBe(1);
  });

  it('round-trips JSON columns, 0/1 flags, epoch-ms times and blobs', async () => {
    await write(store, async () => {
      await store.db.insert(t.meta).values({ key: 'config', value: { search: { limit: 5 }, list: [1, 'two'] } });
      await store.db.insert(t.memories).values({
        userId: 'u1',
        content: 'Dana lives in Lisbon',
        contentKey: 'dana lives in lisbon',
        decayRate: 0.01,
        score: 0.25,
        tags: ['home', 'city'],
        createdAt: NOW,
        eventAt: NOW,
        lastSeenAt: NOW,
      });
      await store.db
        .insert(t.memoryEvents)
        .values({ userId: 'u1', memoryId: 1, action: 'created', detail: { why: 'said so', at: [NOW] }, at: NOW });
      await store.db.insert(t.accessTokens).values([
        { tokenHash: 'h1', prefix: 'p1', userId: 'u1', readOnly: true, createdAt: NOW },
        { tokenHash: 'h2', prefix: 'p2', userId: 'u1', createdAt: NOW },
      ]);
    });
    expect((await store.db.select().from(t.meta).get())?.value).toEqual({ search: { limit: 5 }, list: [1, 'two'] });
    const memory = (await store.db.select().from(t.memories).get())!;
    expect(memory).toMatchObject({
      tags: ['home', 'city'],
      kind: 'fact',
      status: 'active',
      score: 0.25,
      decayRate: 0.01,
      confidence: 1,
      hits: 0,
      createdAt: NOW,
    });
    expect((await store.db.select().from(t.memoryEvents).get())?.detail).toEqual({ why: 'said so', at: [NOW] });
    expect(
      (
        await store.db.select({ readOnly: t.accessTokens.readOnly }).from(t.accessTokens).orderBy(t.accessTokens.id)
      ).map((r) => r.readOnly),
    ).toEqual([true, false]);
    expect(
      await store.db.select({ id: t.accessTokens.id }).from(t.accessTokens).where(eq(t.accessTokens.readOnly, true)),
    ).toEqual([{ id: 1 }]);
    expect(await store.sql.values('select read_only, created_at from access_tokens order by id')).toEqual([
      [1, NOW],
      [0, NOW],
    ]);

    const code = Buffer.from([0xff, 0x00, 0x7f, 0x80]);
    const embedding = Buffer.from(new Float32Array([0.6, -0.8]).buffer);
    await write(store, () => store.db.insert(t.memoryVectors).values({ id: 1, userId: 'u1', seq: 1, code, embedding }));
    const vector = (await store.db.select().from(t.memoryVectors).get())!;
    expect(Buffer.isBuffer(vector.code) && vector.code.equals(code)).toBe(true);
    expect([...new Float32Array(new Uint8Array(vector.embedding).buffer)]).toEqual([...new Float32Array([0.6, -0.8])]);
    // Raw SQL too: a Uint8Array goes in, a Buffer comes out.
    const found = await store.sql.get<{ id: number; code: Buffer }>(
      'select id, code from memory_vectors where code = ?',
      [new Uint8Array(code)],
    );
    expect(found?.id).toBe(1);
    expect(Buffer.isBuffer(found?.code)).toBe(true);
    // Postgres's own addition: the tsvector column is kept by the database, with English stemming.
    expect(
      await store.sql.values("select id from memories where content_search @@ websearch_to_tsquery('english', ?)", [
        'living',
      ]),
    ).toEqual([[1]]);
  });

  it('answers raw SQL as SQLite does: objects, arrays, one value, change counts', async () => {
    await addTurn('one');
    await addTurn('two', NOW + 10);
    expect(
      await store.sql.all('select id, session_id as sessionId, at from turns where user_id = ? order by id', ['u1']),
    ).toEqual([
      { id: 1, sessionId: 's1', at: NOW },
      { id: 2, sessionId: 's1', at: NOW + 10 },
    ]);
    expect(await store.sql.get('select text from turns where id = ?', [2])).toEqual({ text: 'two' });
    expect(await store.sql.get('select text from turns where id = ?', [3])).toBeUndefined();
    expect(await store.sql.values('select id, text from turns order by id desc')).toEqual([
      [2, 'two'],
      [1, 'one'],
    ]);
    // count (int8), sum (numeric), avg, a comparison (boolean) and exists all read as numbers.
    expect(
      await store.sql.get(
        'select count(*) as n, sum(at) as total, avg(id) as mean, max(at) > ? as later, exists (select 1 from turns) as there from turns',
        [NOW],
      ),
    ).toEqual({
      n: 2,
      total: 2 * NOW + 10,
      mean: 1.5,
      later: 1,
      there: 1,
    });
    expect(await store.sql.row('select id, text from turns order by id desc')).toEqual([2, 'two']);
    expect(await store.sql.row('select id from turns where id = ?', [9])).toBeUndefined();
    expect(await store.sql.pluck('select text from turns where id = ?', [1])).toBe('one');
    expect(await store.sql.pluck('select text from turns where id = ?', [9])).toBeUndefined();
    expect(await store.sql.pluck('select \'?\' || ? as "odd?name"', ['!'])).toBe('?!');
    const changed = await write(store, () => store.sql.run("update turns set name = 'n' where user_id = ?", ['u1']));
    expect(changed).toEqual({ changes: 2 });
    expect(await write(store, () => store.sql.run('delete from turns where id = ?', [42]))).toEqual({ changes: 0 });
    // A bigint parameter is a number to Postgres.
    expect(await store.sql.pluck('select text from turns where id = ?', [2n])).toBe('two');
  });

  it('write() commits, rolls back on a throw, joins when nested, and publishes after commit', async () => {
    const heard: ChangeEvent[] = [];
    const stop = onChange(store, (event) => heard.push(event));
    const event: ChangeEvent = { type: 'user', action: 'forgotten', at: NOW, userId: 'u1' };
    await write(store, async () => {
      await store.sql.run('insert into users (id, created_at) values (?, ?)', ['a', NOW]);
      publish(store, event);
      expect(heard).toEqual([]);
      // Nested: the same transaction, which sees the outer write.
      await write(store, async () => {
        expect(await store.sql.pluck('select count(*) from users')).toBe(1);
        await store.sql.run('insert into users (id, created_at) values (?, ?)', ['b', NOW]);
      });
    });
    expect(heard).toEqual([event]);
    expect(await store.sql.values('select id from users order by id')).toEqual([['a'], ['b']]);

    const failure = await write(store, async () => {
      await store.db.insert(t.users).values({ id: 'c', createdAt: NOW });
      await write(store, () => store.sql.run('insert into users (id, created_at) values (?, ?)', ['d', NOW]));
      publish(store, { ...event, at: NOW + 1 });
      throw new Error('changed my mind');
    }).catch((error: Error) => error.message);
    expect(failure).toBe('changed my mind');
    expect(await store.sql.values('select id from users order by id')).toEqual([['a'], ['b']]);
    expect(heard).toEqual([event]);
    // A failed statement rolls its write back too, and the next write starts clean.
    await expect(
      write(store, () => store.sql.run('insert into users (id, created_at) values (?, ?)', ['a', NOW])),
    ).rejects.toThrow(/duplicate key/);
    await write(store, () => store.sql.run('insert into users (id, created_at) values (?, ?)', ['e', NOW]));
    expect(await store.sql.pluck('select count(*) from users')).toBe(3);
    // A drizzle query handed back unawaited runs when write() awaits it: still in its transaction.
    const locks = sql`select count(*) from pg_locks where locktype = 'advisory' and pid = pg_backend_pid() and granted`;
    expect(await write(store, () => store.db.values(locks))).toEqual([[shared ? 1 : 0]]);
    stop();
  });

  it('runs concurrent writes one after the other, so a read-then-write never loses an update', async () => {
    await write(store, () => store.sql.run("insert into meta (key, value) values ('n', '0')"));
    const increment = () =>
      write(store, async () => {
        const n = Number(await store.sql.pluck("select value from meta where key = 'n'"));
        await tick(20);
        await store.sql.run("update meta set value = ? where key = 'n'", [String(n + 1)]);
      });
    await Promise.all([increment(), increment(), writeIfFree(store, increment)]);
    expect(await store.sql.pluck("select value from meta where key = 'n'")).toBe('3');
  });

  // It may also move on a read that prunes a page (that writes WAL): a cache refreshes for nothing.
  it('compacts by rewriting the tables, outside any transaction', async () => {
    await addTurn('to be forgotten');
    await addTurn('kept');
    await write(store, () => store.sql.run('delete from turns where id = ?', [1]));
    const file = await store.sql.pluck("select pg_relation_filenode('turns')");
    await store.sql.compact();
    expect(await store.sql.pluck("select pg_relation_filenode('turns')")).not.toBe(file);
    expect(await store.sql.values('select id, text from turns')).toEqual([[2, 'kept']]);
  });

  // The WAL position: every commit moves it, this connection's too (SQLite's data_version leaves
  // those out; they reach the caches as events either way).
  it('moves dataVersion when a write commits, and while hearing the other nodes only when the hearing starts or stops', async () => {
    const before = await store.sql.dataVersion();
    expect(typeof before).toBe('number');
    await addTurn('news');
    expect(await store.sql.dataVersion()).toBeGreaterThan(before);
    if (!shared) return; // PGlite: no other node to hear
    const other = await openPostgresStore({ url, env: {} });
    try {
      const seen = await other.sql.dataVersion();
      await write(store, () => store.sql.run("insert into meta (key, value) values ('version', '1')"));
      expect(await other.sql.dataVersion()).toBeGreaterThan(seen);
      // Hearing the other nodes, their commits come as events: the version moves only when the
      // hearing starts or stops, when events could be missed.
      const heard: ChangeEvent[] = [];
      onChange(other, (event) => heard.push(event));
      const hearing = hearOtherNodes(other);
      await hearing.ready;
      const listening = await other.sql.dataVersion();
      await write(store, async () => {
        const turn = await addTurn('heard');
        publish(store, { type: 'turn', turnId: turn.id, sessionId: 's1', userId: 'u1', at: NOW });
      });
      await expect.poll(() => heard.filter((e) => e.type === 'turn').length).toBe(1);
      expect(await other.sql.dataVersion()).toBe(listening);
      await hearing.stop();
      expect(await other.sql.dataVersion()).not.toBe(listening);
    } finally {
      await closeStore(other);
    }
  });

  // On a server they travel with COMMIT: the first time on a connection on their own (which
  // prepares them), then as EXECUTE of the prepared statement with the values written in as
  // literals. Every kind of value must come back as bound, each round, and a failing one must
  // take the transaction down with it.
  it('runs runAtCommit writes with the transaction: values intact, a failure rolls it back', async () => {
    const hostile = "it's a \\back\\slash, a 'quote', $1 ? -- not a comment; drop table turns; 🎉 done";
    await store.sql.run("insert into meta (key, value) values ('rounds', '0')");
    for (const round of [1, 2, 3]) {
      await write(store, async () => {
        await store.sql.runAtCommit('insert into meta (key, value) values (?, ?)', [`text ${round}`, hostile]);
        await store.sql.runAtCommit(
          "insert into meta (key, value) values (?, cast(cast(? as float8) * 10000000 as text) || ' ' || cast(? as text) || coalesce(cast(? as text), '-'))",
          [`numbers ${round}`, -1.5e-7, 42, null],
        );
        await store.sql.runAtCommit("insert into meta (key, value) values (?, encode(cast(? as bytea), 'hex'))", [
          `bytes ${round}`,
          Buffer.from([0, 1, 254, round]),
        ]);
        await store.sql.runAtCommit(
          "update meta set value = cast(cast(value as integer) + 1 as text) where key = 'rounds'",
        );
      });
      expect(await store.sql.pluck("select value from meta where key = 'rounds'")).toBe(String(round));
      expect(await store.sql.pluck('select value from meta where key = ?', [`text ${round}`])).toBe(hostile);
      expect(await store.sql.pluck('select value from meta where key = ?', [`numbers ${round}`])).toBe('-1.5 42-');
      expect(await store.sql.pluck('select value from meta where key = ?', [`bytes ${round}`])).toBe(`0001fe0${round}`);
    }
    // A statement the connection has not prepared yet runs at once, after those sent before it.
    await write(store, async () => {
      await store.sql.runAtCommit('insert into meta (key, value) values (?, ?)', ['order', 'a']);
      await store.sql.runAtCommit('update meta set value = value || ? where key = ?', ['b', 'order']);
    });
    expect(await store.sql.pluck("select value from meta where key = 'order'")).toBe('ab');
    const failed = await write(store, async () => {
      await store.sql.run("insert into meta (key, value) values ('before', '1')");
      await store.sql.runAtCommit('insert into meta (key, value) values (?, ?)', ['text 1', 'a duplicate key']);
    }).catch((error: Error) => error);
    expect(failed).toBeInstanceOf(Error);
    expect(await store.sql.pluck("select count(*) from meta where key = 'before'")).toBe(0);
    expect(await store.sql.pluck("select value from meta where key = 'text 1'")).toBe(hostile);
  });

  // An export streams for as long as its client reads: on a server it reads one snapshot on a
  // connection of its own (writes go on meanwhile); PGlite, with one connection, reads live.
  it('gives an export a snapshot that writes committed after it began do not reach', async () => {
    const snapshot = await openSnapshot(store);
    try {
      await addTurn('written during the export');
      const seen = await snapshot.store.sql.pluck(
        "select count(*) from turns where text = 'written during the export'",
      );
      expect(seen).toBe(shared ? 0 : 1);
      if (shared) {
        const refused = await snapshot.store.sql
          .run("insert into meta (key, value) values ('x', 'y')")
          .catch((error: Error) => error);
        expect(String(refused)).toMatch(/read-only transaction/);
      }
    } finally {
      snapshot.close();
    }
    expect(await store.sql.pluck("select count(*) from turns where text = 'written during the export'")).toBe(1);
  });

  it('refuses store.db.transaction(), whose statements could land on different connections', async () => {
    const failure = await store.db.transaction(async () => undefined).catch((error: Error) => error);
    expect(((failure as Error).cause as Error).message).toMatch(/use write\(store, fn\)/);
  });

  // A server has other connections (another process: another store on the URL); PGlite has one,
  // where writes queue like on one SQLite connection and there is nobody to give up for.
  it('serializes writers: the next one waits; a bookkeeping write gives up only for another connection', async () => {
    const other = shared ? await openPostgresStore({ url, env: {} }) : store;
    try {
      await write(store, () => store.sql.run("insert into meta (key, value) values ('n', '0')"));
      // Taken before the write: on PGlite a read outside an open transaction waits for its end.
      const before = await other.sql.dataVersion();
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const first = write(store, async () => {
        await store.sql.run("update meta set value = '1' where key = 'n'");
        await held;
      });
      await tick(50);
      const bookkeeping = writeIfFree(other, () =>
        other.sql.run("insert into meta (key, value) values ('touched', '1')"),
      );
      if (shared) expect(await bookkeeping).toBeUndefined();
      const second = write(other, async () => {
        const n = Number(await other.sql.pluck("select value from meta where key = 'n'"));
        await other.sql.run("update meta set value = ? where key = 'n'", [String(n + 1)]);
      });
      await tick(100);
      release();
      await Promise.all([first, second]);
      expect(await store.sql.pluck("select value from meta where key = 'n'")).toBe('2');
      expect(await bookkeeping).toEqual(shared ? undefined : { changes: 1 });
      // The commits moved the data version the other connection reads.
      expect(await other.sql.dataVersion()).toBeGreaterThan(before);
    } finally {
      if (other !== store) await closeStore(other);
    }
  });
});
