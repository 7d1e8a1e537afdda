// The basics, through the real `sm` executable on a fresh db.
import { DEFAULT_SPACE } from '../../server/core/kernel/space.ts';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { addTurn } from '../../server/core/turns/turns.ts';
import { closeStore, openStore } from '../../server/storage/sqlite/open.ts';
import { sm } from '../helpers/sm-cli.ts';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 2, 1, 9);
const at = (days: number) => ({ SM_NOW: new Date(T0 + days * DAY).toISOString() });
const freshDb = () => join(mkdtempSync(join(tmpdir(), 'sm-cli-')), 'memory.db');

/** Every row of every table, as text: equal snapshots mean the database did not change. */
function snapshot(path: string) {
  const db = new Database(path, { readonly: true });
  const tables = db
    .prepare("select name from sqlite_master where type = 'table' and name not like '%fts%' order by name")
    .all() as { name: string }[];
  const dump = tables
    .map(({ name }) => `${name}:${JSON.stringify(db.prepare(`select * from "${name}"`).all())}`)
    .join('\n');
  db.close();
  return dump;
}

describe('sm on a fresh database', () => {
  it('scores, merges, promotes, archives, explains and forgets as specified', async () => {
    const db = freshDb();
    const created = await sm(
      ['--db', db, 'remember', '--text', 'User likes JRPGs', '--importance', '1', '--json'],
      at(0),
    );
    expect(created.code).toBe(0);
    expect(created.json).toMatchObject({ action: 'CREATED', memory: { id: 1, layer: 'MID', hits: 0, importance: 1 } });

    const why = await sm(['--db', db, 'explain', '--id', '1', '--json'], at(10));
    expect(why.code).toBe(0);
    expect(Math.abs(why.json.score - (Math.log(1 + 0) + Math.exp(-0.05 * 10) + 2 * 1))).toBeLessThan(1e-6);
    expect(why.json).toMatchObject({ hits: 0, ageDays: 10, scoreTerms: { importance: 2 } });

    for (const [day, text] of [
      [10, 'user likes jrpgs.'],
      [11, 'User LIKES JRPGs!'],
      [12, 'User likes JRPGs'],
    ] as const) {
      const merged = await sm(['--db', db, 'remember', '--text', text, '--json'], at(day));
      expect(merged.json).toMatchObject({ action: 'MERGED', memory: { id: 1 } });
    }
    const listed = await sm(['--db', db, 'list', '--json'], at(12));
    expect(listed.json.totalCount).toBe(1);
    expect(listed.json.memories[0]).toMatchObject({ id: 1, hits: 3 });

    const weak = await sm(['--db', db, 'remember', '--text', 'User had soup for lunch', '--json'], at(0));
    const gc = await sm(['--db', db, 'gc', '--json'], at(13));
    expect(gc.code).toBe(0);
    expect(gc.json).toMatchObject({ scored: 2, promoted: 1, archived: 0 });
    expect(
      (await sm(['--db', db, 'list', '--layer', 'long', '--json'], at(13))).json.memories.map((m: any) => m.id),
    ).toEqual([1]);
    const later = await sm(['--db', db, 'gc', '--json'], at(31));
    expect(later.json).toMatchObject({ promoted: 0, archived: 1, byReason: { lowScore: 1 } });
    const weakWhy = await sm(['--db', db, 'explain', '--id', String(weak.json.memory.id), '--json'], at(31));
    expect(weakWhy.json.status).toBe('ARCHIVED');
    expect(weakWhy.json.decisions[0]).toMatchObject({ action: 'ARCHIVED', detail: { reason: 'low_score' } });
    const human = await sm(['--db', db, 'explain', '--id', String(weak.json.memory.id)], at(31));
    expect(human.stdout).toMatch(/archived \{"reason":"low_score"/);

    const forgotten = await sm(['--db', db, 'forget', '--text', 'JRPGs', '--json'], at(32));
    expect(forgotten.json).toMatchObject({ deleted: 1, memoryIds: [1] });
    for (const status of ['active', 'archived']) {
      const after = await sm(['--db', db, 'list', '--q', 'jrpgs', '--status', status, '--json'], at(32));
      expect(after.json.totalCount).toBe(0);
    }
  });

  it('deletes instead of archiving under gc.mode=delete, and explain shows it', async () => {
    const db = freshDb();
    writeFileSync(join(db, '..', 'config.json'), JSON.stringify({ gc: { mode: 'delete' } }));
    await sm(['--db', db, 'remember', '--text', 'User watched a film', '--json'], at(0));
    const gc = await sm(['--db', db, 'gc', '--json'], at(31));
    expect(gc.json).toMatchObject({ mode: 'DELETE', deleted: 1 });
    const why = await sm(['--db', db, 'explain', '--id', '1', '--json'], at(31));
    expect(why.json).toMatchObject({ status: 'DELETED', memory: null });
    expect(why.json.decisions[0]).toMatchObject({ action: 'DELETED' });
  });

  it('keeps a short-term window of 100 turns out of 105', async () => {
    const db = freshDb();
    const store = await openStore({ path: db, env: {} });
    for (let i = 0; i < 100; i++)
      await addTurn(store, DEFAULT_SPACE, { sessionId: 's1', role: 'user', text: `turn ${i}`, at: T0 + i * 1000 });
    await closeStore(store);
    for (let i = 100; i < 105; i++) {
      const added = await sm([
        '--db',
        db,
        'add-turn',
        '--session',
        's1',
        '--role',
        i % 2 ? 'assistant' : 'user',
        '--text',
        `turn ${i}`,
        '--at',
        String(T0 + i * 1000),
        '--json',
      ]);
      expect(added.json.turn).toMatchObject({ sessionId: 's1', text: `turn ${i}` });
    }
    const context = await sm(['--db', db, 'get-context', '--session', 's1', '--json']);
    expect(context.json.shortTerm).toHaveLength(100);
    expect(context.json.shortTerm[0].text).toBe('turn 5');
    expect(context.json.shortTerm[99].text).toBe('turn 104');
  });

  it('rejects bad input with a clear message and a non-zero exit, leaving the database unchanged', async () => {
    const db = freshDb();
    await sm(['--db', db, 'add-turn', '--session', 's1', '--role', 'user', '--text', 'hello']);
    await sm(['--db', db, 'remember', '--text', 'User likes tea']);
    const before = snapshot(db);
    const cases: [string[], Record<string, string>, RegExp][] = [
      [['add-turn', '--session', 's1', '--role', 'robot', '--text', 'x'], {}, /'robot' is invalid.*user, assistant/],
      [['add-turn', '--session', 's1', '--role', 'user', '--text', '   '], {}, /text: must not be empty/],
      [['add-turn', '--session', 's1', '--role', 'user'], {}, /required option '--text <text>'/],
      [['explain'], {}, /required option '--id <id>'/],
      [['explain', '--id', '42'], {}, /memory 42 not found/],
      [['explain', '--id', 'abc'], {}, /expected a whole number/],
      [['forget'], {}, /exactly one of id or text/],
      [['remember', '--text', 'x', '--importance', '7'], {}, /importance/],
      [['add-turn', '--session', 's1', '--role', 'user', '--text', 'x', '--at', 'yesterday'], {}, /ISO-8601/],
      [
        ['remember', '--text', 'User likes coffee'],
        { SM_NOW: 'next tuesday' },
        /SM_NOW: "next tuesday" is neither ISO-8601 nor epoch milliseconds/,
      ],
      [
        ['remember', '--text', 'User likes coffee'],
        { SM_CONFIG__GC__MODE: 'shred' },
        /Invalid config gc\.mode \(from environment SM_CONFIG__GC__MODE\)/,
      ],
      [['remember', '--text', 'User likes coffee'], { SM_CONFIG__SHORT_TERM__SIZE: '0' }, /short_term\.size/],
      [['frobnicate'], {}, /unknown command 'frobnicate'/],
    ];
    for (const [args, env, message] of cases) {
      const result = await sm(['--db', db, ...args], env);
      expect(result.code, args.join(' ')).toBeGreaterThan(0);
      expect(result.stderr, args.join(' ')).toMatch(message);
      expect(result.stdout).toBe('');
    }
    expect(snapshot(db)).toBe(before);
  });

  it('shows an example in every command help', async () => {
    const root = await sm(['--help']);
    expect(root.code).toBe(0);
    for (const command of ['add-turn', 'get-context', 'remember', 'list', 'forget', 'gc', 'explain']) {
      expect(root.stdout).toContain(command);
      const help = await sm([command, '--help']);
      expect(help.stdout, command).toMatch(/Examples?:\n {2}sm /);
    }
  });
});
