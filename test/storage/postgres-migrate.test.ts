// `sm migrate --from FILE --to URL` through the real `sm`: a SQLite file
// holding turns, memories (a superseded one among them), entities and their links, jobs, tokens
// and vectors is copied into Postgres row for row with its ids, and the Postgres store then
// answers search, context and stats as the file does. Also: the dry run writes nothing, a target
// with rows is refused unless --replace, a count that differs fails naming the table and keeps
// nothing, and bad input names the flag. A real Postgres server (Debian's binaries) and PGlite.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../server/core/kernel/clock.ts';
import { getContext } from '../../server/core/context/context.ts';
import { search } from '../../server/core/search/index.ts';
import { initVectors, putVectors } from '../../server/core/vectors/vectors.ts';
import type { Space } from '../../server/core/kernel/space.ts';
import { getStats } from '../../server/core/stats/stats.ts';
import type { Store } from '../../server/core/kernel/store.ts';
import { createToken } from '../../server/core/users/tokens.ts';
import { closeStore, openStore } from '../../server/storage/sqlite/open.ts';
import { drainJobs } from '../../server/jobs/worker.ts';
import { copyOrder, copySqliteToPostgres } from '../../server/storage/copy-sqlite.ts';
import { openPostgresStore } from '../../server/storage/postgres/open-postgres.ts';
import { ingestTurn } from '../../server/services/ingest.ts';
import { jobHandlers } from '../../server/services/job-handlers.ts';
import { createRuntime } from '../../server/services/runtime.ts';
import { startPostgresServer, type PostgresServer } from '../helpers/postgres-server.ts';
import { sm } from '../helpers/sm-cli.ts';

const T0 = Date.UTC(2026, 0, 1, 12);
const DAY = 86_400_000;
const NOW = T0 + 40 * DAY;
const ALICE: Space = { userId: 'alice', agentId: null };
const BOB: Space = { userId: 'bob', agentId: null };
/** `sm` without the warn-level log lines (Debian's Postgres has no pgvector, and says so at open). */
const smQuiet = (args: string[]) => sm(args, { SM_LOG_LEVEL: 'error' });
const temp = (name: string) => mkdtempSync(join(tmpdir(), `sm-pg-migrate-${name}-`));

let server: PostgresServer;
let source: string;
let databases = 0;
const freshDatabase = () => server.createDatabase(`copy_${++databases}`);

/** A file with every kind of row: two users' conversations, a fact superseded by a move, entities from NER, a token, vectors, jobs left pending. */
async function sourceFile(): Promise<string> {
  const path = join(temp('source'), 'memory.db');
  let now = T0;
  const store = await openStore({
    path,
    env: {},
    clock: { now: () => now },
    config: { extractor: { mode: 'heuristic' } },
  });
  const runtime = await createRuntime(store, {});
  const say = async (space: Space, sessionId: string, name: string, text: string, days = 0) => {
    now += days * DAY + 60_000;
    return (await ingestTurn(runtime, space, { sessionId, role: 'user', name, text, at: now })).turn;
  };
  await say(ALICE, 'a1', 'Alice', 'I live in Lisbon now.');
  await say(ALICE, 'a1', 'Alice', 'I work as a nurse at Santa Maria hospital.');
  await say(ALICE, 'a1', 'Alice', 'My sister Joana Pereira visits me every summer.');
  await say(ALICE, 'a1', 'Alice', 'I love hiking in the Sintra mountains with my dog Bolt.');
  await say(ALICE, 'a2', 'Alice', 'I moved to Porto.', 30);
  await say(ALICE, 'a2', 'Alice', 'The new flat is near the river.');
  await say(ALICE, 'a2', 'Alice', 'Joana Pereira came to help me paint the new flat.');
  await say(BOB, 'b1', 'Bob', 'I play the cello in the Berlin Philharmonic.');
  await say(BOB, 'b1', 'Bob', 'My favourite composer is Johann Sebastian Bach.');
  // Accurate NER and the rest of the queued work: entities and their links to turns and memories.
  await drainJobs(store, jobHandlers(runtime));
  await say(ALICE, 'a3', 'Alice', 'Next month I start a new job at the Porto children hospital.', 5); // leaves jobs pending
  await createToken(store, { userId: 'alice', label: 'phone' });
  await initVectors(store, { dimensions: 8, model: 'test-embed' });
  const vector = (seed: number) => Float32Array.from({ length: 8 }, (_, i) => Math.sin(seed * 7 + i));
  const turnIds = (
    await store.sql.all<{ id: number; userId: string }>('select id, user_id as userId from turns order by id')
  ).map((r) => ({ id: r.id, userId: r.userId, vector: vector(r.id) }));
  const memoryIds = (
    await store.sql.all<{ id: number; userId: string }>('select id, user_id as userId from memories order by id')
  ).map((r) => ({ id: r.id, userId: r.userId, vector: vector(100 + r.id) }));
  await putVectors(store, 'turns', turnIds);
  await putVectors(store, 'memories', memoryIds);
  await closeStore(store);
  return path;
}

beforeAll(async () => {
  [server, source] = await Promise.all([startPostgresServer(), sourceFile()]);
}, 120_000);
afterAll(() => server?.stop());

/** Every row of every copied table, blobs as hex, each row as JSON, sorted: the file's and the database's must be equal. */
const listed = (columns: string[]) => columns.map((c) => `"${c}"`).join(', ');
const canonical = (rows: unknown[][]) =>
  rows.map((row) => JSON.stringify(row.map((v) => (Buffer.isBuffer(v) ? v.toString('hex') : v)))).sort();
function fileRows(path: string) {
  const sqlite = new Database(path, { readonly: true });
  try {
    return Object.fromEntries(
      copyOrder().map(({ name, columns }) => [
        name,
        canonical(
          sqlite
            .prepare(`select ${listed(columns)} from "${name}"`)
            .raw(true)
            .all() as unknown[][],
        ),
      ]),
    );
  } finally {
    sqlite.close();
  }
}
async function databaseRows(store: Store) {
  const rows: Record<string, string[]> = {};
  for (const { name, columns } of copyOrder())
    rows[name] = canonical(await store.sql.values(`select ${listed(columns)} from "${name}"`));
  return rows;
}

const tableCount = (json: { tables: { table: string; rows: number }[] }, table: string) =>
  json.tables.find((t) => t.table === table)?.rows;

type Hit = { kind: string; id: number; text: string };
/**
 * Searches compared hit for hit (the same hits, the same best hit), but not the order of the
 * rest: SQLite ranks the words of a user who holds most of a table's rows with FTS5's own
 * bm25(), Postgres with text-index/bm25.ts, whose IDF of a word in most rows stays above FTS5's floor
 * and whose lengths leave out stop words, so two hits matching only such a word can swap places
 * ('where does Alice live': facts 2 and 3, ranks 3 and 4).
 */
const ranked = (hits: Hit[]) => ({
  best: hits[0],
  hits: [...hits].sort((a, b) => a.kind.localeCompare(b.kind) || a.id - b.id),
});

/** What a user asks of a store: searches, the context of a session, the stats. */
async function answers(store: Store) {
  const asked = async (space: Space, query: string) =>
    (await search(store, space, { query, limit: 10 })).hits.map((h) => ({ kind: h.kind, id: h.id, text: h.text }));
  const context = async (space: Space, sessionId: string, query: string) => {
    const c = await getContext(store, space, { sessionId, query, tokenBudget: 500 });
    return { markdown: c.markdown, items: c.items.map((i) => [i.kind, i.id]) };
  };
  return {
    where: await asked(ALICE, 'where does Alice live'),
    sister: await asked(ALICE, 'Joana Pereira'),
    hiking: await asked(ALICE, 'hiking with the dog'),
    cello: await asked(BOB, 'cello'),
    nothingOfBob: await asked(ALICE, 'cello Berlin'),
    context: await context(ALICE, 'a3', 'where does Alice live and work'),
    // features.vec says whether this backend could search vectors (no pgvector on Debian's server).
    aliceStats: { ...(await getStats(store, ALICE)), features: null },
    allStats: { ...(await getStats(store, null)), features: null },
  };
}

describe('sm migrate', () => {
  it('copies every table row for row with its ids into a Postgres server, parents first, and moves the id sequences past them', {
    timeout: 120_000,
  }, async () => {
    const url = await freshDatabase();
    const result = await smQuiet(['migrate', '--from', source, '--to', url, '--json']);
    expect(result.stderr).toBe(''); // no progress bar off a terminal
    expect(result.code).toBe(0);
    const report = result.json;
    expect(report).toMatchObject({
      dryRun: false,
      from: source,
      to: `host 127.0.0.1, port ${server.port}, database "copy_${databases}"`,
      targetRows: 0,
      replaced: false,
    });
    // Every kind of row the brief names is there to be copied.
    for (const table of [
      'turns',
      'memories',
      'memory_relations',
      'entities',
      'turn_entities',
      'memory_entities',
      'jobs',
      'access_tokens',
      'turn_vectors',
      'memory_vectors',
      'meta',
      'users',
      'sessions',
    ]) {
      expect(tableCount(report, table), table).toBeGreaterThan(0);
    }
    expect(report.rows).toBe(Object.values(fileRows(source)).reduce((n, rows) => n + rows.length, 0));
    // Parents before the tables whose keys point at them.
    const order = report.tables.map((t: { table: string }) => t.table);
    expect(order.indexOf('sessions')).toBeLessThan(order.indexOf('turns'));
    expect(order.indexOf('turns')).toBeLessThan(order.indexOf('turn_entities'));
    expect(order.indexOf('entities')).toBeLessThan(order.indexOf('memory_entities'));

    const copy = await openPostgresStore({ url, env: {} });
    try {
      expect(await databaseRows(copy)).toEqual(fileRows(source));
      // The move superseded the old home: archived, linked from the fact that replaced it.
      const superseded = await copy.sql.all<{ content: string; status: string }>(
        "select m.content as content, m.status as status from memory_relations r join memories m on m.id = r.to_id where r.kind = 'supersedes'",
      );
      expect(superseded).toEqual([{ content: 'Alice lives in Lisbon now', status: 'archived' }]);
      // The identity sequences moved past the copied ids: the next row numbered follows them.
      for (const [table, insert] of [
        [
          'turns',
          "insert into turns (id, user_id, session_id, role, text, at, created_at) values (null, 'alice', 'a3', 'user', 'probe', 0, 0) returning id",
        ],
        [
          'memory_events',
          "insert into memory_events (id, user_id, memory_id, action, at) values (null, 'alice', 1, 'probe', 0) returning id",
        ],
        [
          'access_tokens',
          "insert into access_tokens (id, token_hash, prefix, user_id, created_at) values (null, 'probe', 'p', 'alice', 0) returning id",
        ],
      ] as const) {
        const highest = (await copy.sql.pluck<number>(`select max(id) from ${table}`))!;
        expect(await copy.sql.pluck<number>(insert), table).toBe(highest + 1);
      }
    } finally {
      await closeStore(copy);
    }
  });

  it('copies into PGlite (pglite:<dir>) the same way', { timeout: 120_000 }, async () => {
    const dir = join(temp('pglite'), 'data');
    const result = await smQuiet(['migrate', '--from', source, '--to', `pglite:${dir}`]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      new RegExp(
        `^copied \\d+ rows from ${source.replaceAll('.', '\\.')} to PGlite in ${dir.replaceAll('.', '\\.')} in [\\d.]+ s\\n`,
      ),
    );
    expect(result.stdout).toMatch(/counts verified: every table has as many rows as in the file/);
    const copy = await openPostgresStore({ url: `pglite:${dir}`, env: {} });
    try {
      expect(await databaseRows(copy)).toEqual(fileRows(source));
    } finally {
      await closeStore(copy);
    }
  });

  it('the copy answers search, context and stats as the file does (a Postgres server and PGlite)', {
    timeout: 120_000,
  }, async () => {
    const targets = [await freshDatabase(), `pglite:${join(temp('answers'), 'data')}`];
    const clock = fixedClock(NOW);
    const file = await openStore({ path: source, env: {}, clock });
    try {
      const onFile = await answers(file);
      expect(onFile.where.length).toBeGreaterThan(0);
      expect(onFile.nothingOfBob.every((hit) => !/cello/i.test(hit.text))).toBe(true);
      for (const url of targets) {
        await copySqliteToPostgres({ from: source, to: url });
        const copy = await openPostgresStore({ url, env: {}, clock });
        try {
          const onCopy = await answers(copy);
          for (const key of Object.keys(onFile) as (keyof typeof onFile)[]) {
            const [a, b] = Array.isArray(onFile[key])
              ? [ranked(onCopy[key] as Hit[]), ranked(onFile[key] as Hit[])]
              : [onCopy[key], onFile[key]];
            expect.soft(a, `${key} on ${url.split(':')[0]}`).toEqual(b);
          }
          // And it goes on from there: the next turn numbers after the copied ones.
          const highest = (await copy.sql.pluck<number>('select max(id) from turns'))!;
          const { turn } = await ingestTurn(await createRuntime(copy, {}), ALICE, {
            sessionId: 'a3',
            role: 'user',
            text: 'I also bought a bicycle.',
          });
          expect(turn.id).toBe(highest + 1);
        } finally {
          await closeStore(copy);
        }
      }
    } finally {
      await closeStore(file);
    }
  });

  it('--dry-run reads and counts, says what it would copy, and writes nothing (the target gets no tables)', async () => {
    const url = await freshDatabase();
    const { code, json } = await smQuiet(['migrate', '--from', source, '--to', url, '--dry-run', '--json']);
    expect(code).toBe(0);
    expect(json).toMatchObject({ dryRun: true, targetRows: 0, rows: expect.any(Number) });
    expect(json.rows).toBe(json.tables.reduce((n: number, t: { rows: number }) => n + t.rows, 0));
    expect(tableCount(json, 'turns')).toBe(fileRows(source).turns!.length);
    const human = await smQuiet(['migrate', '--from', source, '--to', url, '--dry-run']);
    expect(human.stdout).toMatch(
      /^dry run, nothing written: would copy \d+ rows from .* to host 127\.0\.0\.1, port \d+, database "copy_\d+"\n/,
    );
    expect(human.stdout).toMatch(/the target is empty: the copy would go ahead/);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      expect(
        (await client.query("select count(*)::int as n from information_schema.tables where table_schema = 'public'"))
          .rows[0].n,
      ).toBe(0);
    } finally {
      await client.end();
    }
  });

  it('refuses a target that holds rows unless --replace, which empties it and copies again', {
    timeout: 120_000,
  }, async () => {
    const url = await freshDatabase();
    expect((await smQuiet(['migrate', '--from', source, '--to', url])).code).toBe(0);
    const again = await smQuiet(['migrate', '--from', source, '--to', url]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(
      /^sm: the target \(host 127\.0\.0\.1, port \d+, database "copy_\d+"\) already holds \d+ rows: pass --replace to delete them and copy, or pick an empty database\n$/,
    );
    const dry = await smQuiet(['migrate', '--from', source, '--to', url, '--dry-run']);
    expect(dry.stdout).toMatch(/the target already holds \d+ rows: the copy would be refused without --replace/);
    const replaced = await smQuiet(['migrate', '--from', source, '--to', url, '--replace', '--json']);
    expect(replaced.code).toBe(0);
    expect(replaced.json).toMatchObject({ replaced: true, targetRows: replaced.json.rows });
    const copy = await openPostgresStore({ url, env: {} });
    try {
      expect(await databaseRows(copy)).toEqual(fileRows(source));
    } finally {
      await closeStore(copy);
    }
  });

  it('a table whose count differs after copying fails the copy (exit 1, naming the table) and keeps nothing', {
    timeout: 120_000,
  }, async () => {
    const url = await freshDatabase();
    // The target's schema first (an empty store), then a trigger that silently drops one decision-log row.
    await closeStore(await openPostgresStore({ url, env: {} }));
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(
        `create function drop_one() returns trigger language plpgsql as $$ begin if new.id = 2 then return null; end if; return new; end $$`,
      );
      await client.query(
        'create trigger drop_one before insert on memory_events for each row execute function drop_one()',
      );
      const result = await smQuiet(['migrate', '--from', source, '--to', url]);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        /^sm: counts differ after copying: memory_events has (\d+) rows in the source and (\d+) in the target; nothing was kept\n$/,
      );
      const [, inFile, inTarget] = /has (\d+) rows in the source and (\d+)/.exec(result.stderr)!;
      expect(Number(inTarget)).toBe(Number(inFile) - 1);
      expect(
        (
          await client.query(
            'select (select count(*) from turns) + (select count(*) from memories) + (select count(*) from memory_events) as n',
          )
        ).rows[0].n,
      ).toBe('0');
    } finally {
      await client.end();
    }
  });

  it('shows a progress bar on a terminal', { timeout: 120_000 }, async () => {
    const url = await freshDatabase();
    const command = [
      process.execPath,
      join(import.meta.dirname, '../..', 'bin/sm.js'),
      'migrate',
      '--from',
      source,
      '--to',
      url,
    ]
      .map((a) => `'${a}'`)
      .join(' ');
    // `script` gives the command a terminal of its own.
    const output = await new Promise<string>((resolve) =>
      execFile(
        'script',
        ['-qec', command, '/dev/null'],
        { env: { ...process.env, SM_LOG_LEVEL: 'error' } },
        (_error, stdout) => resolve(stdout),
      ),
    );
    expect(output).toMatch(/copying \[=+\] 100% (\d+)\/\1 rows/);
    expect(output).toMatch(/counts verified/);
  });
});

describe('sm migrate: bad input', () => {
  it('a missing or unknown flag is a usage error naming it (exit 2)', async () => {
    const missing = await smQuiet(['migrate', '--from', source]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/required option '--to <url>' not specified/);
    const noFrom = await smQuiet(['migrate', '--to', 'pglite:']);
    expect(noFrom.code).toBe(2);
    expect(noFrom.stderr).toMatch(/required option '--from <path>' not specified/);
    const unknown = await smQuiet(['migrate', '--from', source, '--to', 'pglite:', '--dryrun']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown option '--dryrun'/);
    const batch = await smQuiet(['migrate', '--from', source, '--to', 'pglite:', '--batch', '0']);
    expect(batch.code).toBe(2);
    expect(batch.stderr).toMatch(/option '--batch <rows>' argument '0' is invalid\. expected at least 1/);
  });

  it('a source that is not a SQLite database of this service, or a target that is not Postgres, is bad input (exit 2) naming the flag', async () => {
    const dir = temp('bad');
    const text = join(dir, 'notes.txt');
    writeFileSync(text, 'these are not the rows you are looking for\n'.repeat(200));
    const other = join(dir, 'other.db');
    new Database(other).exec('create table things (id integer primary key)');
    const cases: [string[], RegExp][] = [
      [
        ['--from', text, '--to', 'pglite:'],
        /^sm: --from: .*notes\.txt is not a SQLite database \(file is not a database\)\n$/,
      ],
      [['--from', join(dir, 'missing.db'), '--to', 'pglite:'], /^sm: --from: no such file: .*missing\.db\n$/],
      [['--from', dir, '--to', 'pglite:'], /^sm: --from: .* is a directory, not a SQLite database file\n$/],
      [
        ['--from', other, '--to', 'pglite:'],
        /^sm: --from: .*other\.db is a SQLite database, but not one of Symbiosis Memory \(it has no turns table\)\n$/,
      ],
      [
        ['--from', source, '--to', 'mysql://root:hunter2@db/x'],
        /^sm: --to: expected postgres:\/\/user:password@host:port\/database, pglite: or pglite:<directory>\n$/,
      ],
    ];
    for (const [args, message] of cases) {
      const result = await smQuiet(['migrate', ...args]);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stderr).not.toContain('hunter2');
    }
  });

  it('an unreachable target says host, port and database without the password (exit 1)', async () => {
    const result = await smQuiet(['migrate', '--from', source, '--to', 'postgres://sm:pa55word@127.0.0.1:1/memories']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^sm: cannot reach Postgres at host 127\.0\.0\.1, port 1, database "memories": /);
    expect(result.stderr).not.toContain('pa55word');
    const dry = await smQuiet([
      'migrate',
      '--from',
      source,
      '--to',
      'postgres://sm:pa55word@127.0.0.1:1/memories',
      '--dry-run',
    ]);
    expect(dry.code).toBe(1);
    expect(dry.stderr).toMatch(/^sm: cannot reach Postgres at host 127\.0\.0\.1, port 1, database "memories": /);
    expect(dry.stderr).not.toContain('pa55word');
  });
});
