// The `optimize` maintenance task: merging the FTS5 search indexes into one segment each, over
// the API and the real `sm` executable, on a temp-file database.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MaintenanceTask, Role, SearchKind, type SymbiosisClient } from '../../client/src/index.ts';
import { optimizeSearchIndexes } from '../../server/storage/sqlite/search-index.ts';
import { sm } from '../helpers/sm-cli.ts';
import { startServer, type TestServer } from '../helpers/api-server.ts';

let server: TestServer;
let client: SymbiosisClient;

beforeAll(async () => {
  server = await startServer({ config: { extractor: { mode: 'heuristic' } } });
  client = server.client();
});
afterAll(() => server.close());

const PEOPLE = ['Ana', 'Bruno', 'Chen', 'Dana', 'Emeka'];
const PLACES = ['Lisbon', 'Porto', 'Berlin', 'Madrid', 'Osaka', 'Nairobi', 'Quito'];
const THINGS = [
  'pottery',
  'sailing',
  'chess',
  'bacalhau',
  'green tea',
  'jazz',
  'hiking',
  'ramen',
  'painting',
  'cycling',
  'opera',
];
const line = (i: number) =>
  `${PEOPLE[i % PEOPLE.length]} talked about ${THINGS[i % THINGS.length]} in ${PLACES[i % PLACES.length]} on day ${i}`;

/** Rows of an FTS5 index's b-tree table: one structure record plus the pages of every segment. */
const dataRows = (fts: 'turns_fts' | 'memories_fts') =>
  (server.store.sqlite.prepare(`select count(*) as n from ${fts}_data`).get() as { n: number }).n;
const integrityCheck = (fts: 'turns_fts' | 'memories_fts') =>
  server.store.sqlite.prepare(`insert into ${fts}(${fts}, rank) values ('integrity-check', 1)`).run();

const QUERIES = ['pottery in Lisbon', 'Ana sailing', 'green tea Osaka', 'day 42', 'jazz painting Quito'];
/** The hits of each query: which rows, found by which signals at which rank, with their score. */
const hits = async (kinds?: SearchKind[]) => {
  const out = [];
  for (const query of QUERIES) {
    const { search } = await client.search({ query, kinds, limit: 20 });
    out.push(search.map((h) => ({ kind: h.kind, id: h.id, score: h.score, signals: h.signals })));
  }
  return out;
};

describe('runMaintenance OPTIMIZE', () => {
  it('merges both FTS5 indexes; the index shrinks after 200 single-turn inserts and search finds the same hits', {
    timeout: 60_000,
  }, async () => {
    // One transaction per turn, as addTurn writes them: each adds a small segment to turns_fts.
    for (let i = 0; i < 200; i++) {
      await client.addTurn({
        input: {
          sessionId: `opt-${i % 4}`,
          role: i % 2 ? Role.Assistant : Role.User,
          text: line(i),
          autoExtract: false,
        },
      });
    }
    for (const fact of ['Ana loves pottery in Lisbon', 'Bruno drinks green tea', 'Chen sails in Osaka']) {
      await client.remember({ input: { content: fact } });
    }
    const turnsBefore = await hits([SearchKind.Turn]);
    const allBefore = await hits();
    expect(turnsBefore.every((h) => h.length > 0)).toBe(true);
    const rowsBefore = dataRows('turns_fts');

    const { runMaintenance: report } = await client.runMaintenance({ task: MaintenanceTask.Optimize });
    expect(report).toMatchObject({
      task: MaintenanceTask.Optimize,
      enrichment: null,
      consolidation: null,
      decay: null,
      reflection: null,
    });
    expect(report.optimization?.indexes).toEqual(['memories_fts', 'turns_fts']);
    expect(report.optimization!.ms).toBeGreaterThanOrEqual(0);
    expect(Date.parse(report.finishedAt)).toBeGreaterThanOrEqual(Date.parse(report.startedAt));

    const rowsAfter = dataRows('turns_fts');
    expect(rowsAfter).toBeLessThan(rowsBefore);
    integrityCheck('turns_fts');
    integrityCheck('memories_fts');
    expect(await hits([SearchKind.Turn])).toEqual(turnsBefore);
    expect((await hits()).map((q) => q.map((h) => `${h.kind}:${h.id}`))).toEqual(
      allBefore.map((q) => q.map((h) => `${h.kind}:${h.id}`)),
    );

    // A second run on a merged index does not grow it.
    const again = (await client.runMaintenance({ task: MaintenanceTask.Optimize })).runMaintenance;
    expect(again.optimization?.indexes).toEqual(['memories_fts', 'turns_fts']);
    expect(dataRows('turns_fts')).toBeLessThanOrEqual(rowsAfter);

    // The triggers keep indexing new turns into the merged index.
    const { addTurn } = await client.addTurn({
      input: { sessionId: 'opt-new', role: Role.User, text: 'Emeka learned the theremin', autoExtract: false },
    });
    const { search } = await client.search({ query: 'theremin', kinds: [SearchKind.Turn] });
    expect(search.map((h) => h.id)).toEqual([addTurn.turn.id]);
    integrityCheck('turns_fts');
  });
});

describe('sm maintenance optimize', () => {
  it('prints which indexes it merged, as text and as JSON', { timeout: 60_000 }, async () => {
    const db = join(mkdtempSync(join(tmpdir(), 'sm-optimize-')), 'memory.db');
    for (const text of ['I like pottery', 'I live in Porto']) {
      expect((await sm(['--db', db, 'add-turn', '--session', 's1', '--role', 'user', '--text', text])).code).toBe(0);
    }
    const text = await sm(['--db', db, 'maintenance', 'optimize']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^optimized memories_fts, turns_fts in \d+\.\d ms\n$/);
    const json = await sm(['--db', db, 'maintenance', 'optimize', '--json']);
    expect(json.json).toMatchObject({
      task: 'OPTIMIZE',
      optimization: { indexes: ['memories_fts', 'turns_fts'], ms: expect.any(Number) },
      decay: null,
    });
    const found = await sm(['--db', db, 'search', 'pottery', '--kinds', 'turn', '--json']);
    expect(found.json[0].text).toBe('I like pottery');
  });
});

describe('optimizeSearchIndexes', () => {
  it('skips indexes that do not exist (a database written without FTS5)', () => {
    const sqlite = new Database(':memory:');
    try {
      expect(optimizeSearchIndexes(sqlite)).toEqual({ indexes: [], ms: expect.any(Number) });
    } finally {
      sqlite.close();
    }
  });
});
