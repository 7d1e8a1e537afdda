// `sm serve` on Postgres: started with SM_DATABASE_URL on a real Postgres
// server and driven as an app drives it, through the generated client (HTTP and a WebSocket
// subscription); the same conversation sent to `sm serve` on a SQLite file must get the same
// answers: the same turns and facts, the same memory events, searches and context.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, Role, type SymbiosisClient } from '../../client/src/index.ts';
import { firstEvent } from '../helpers/api-server.ts';
import { startPostgresServer, type PostgresServer } from '../helpers/postgres-server.ts';
import { smServe } from '../helpers/sm-serve.ts';

/** The servers' clock, pinned: every time they stamp is the same on both. */
const NOW = '2026-03-01T12:00:00.000Z';
const CONVERSATION = [
  { sessionId: 'a1', at: '2026-01-05T10:00:00Z', text: 'I live in Lisbon now.' },
  { sessionId: 'a1', at: '2026-01-05T10:01:00Z', text: 'I work as a nurse at Santa Maria hospital.' },
  { sessionId: 'a1', at: '2026-01-05T10:02:00Z', text: 'My sister Joana Pereira visits me every summer.' },
  { sessionId: 'a1', at: '2026-01-05T10:03:00Z', text: 'I love hiking in the Sintra mountains with my dog Bolt.' },
  { sessionId: 'a2', at: '2026-02-10T18:00:00Z', text: 'I moved to Porto.' },
  { sessionId: 'a2', at: '2026-02-10T18:01:00Z', text: 'Joana Pereira came to help me paint the new flat.' },
  { sessionId: 'a2', at: '2026-02-10T18:02:00Z', text: 'My favourite food is bacalhau with chickpeas.' },
] as const;
const LAST_FACT = 'Alice is learning to surf';
/** Probe turns sent (by another user) to learn the socket listens; a fixed number, so the ids after them agree. */
const PROBES = 8;

let postgres: PostgresServer;
const stops: (() => Promise<void>)[] = [];
const clients: SymbiosisClient[] = [];

beforeAll(async () => {
  postgres = await startPostgresServer();
}, 60_000);
afterAll(async () => {
  await Promise.all(clients.map((c) => c.dispose()));
  await Promise.all(stops.map((stop) => stop()));
  postgres?.stop();
});

/** Starts `sm serve` (jobs off: they run when the script says, so both servers do the same work at the same point). */
async function serve(db: string | null, env: Record<string, string>): Promise<SymbiosisClient> {
  const server = await smServe(db, ['--no-jobs'], { SM_NOW: NOW, SM_CONFIG__EXTRACTOR__MODE: 'heuristic', ...env });
  stops.push(server.stop);
  const client = createClient({ url: server.url, webSocketImpl: WebSocket, userId: 'alice' });
  clients.push(client);
  return client;
}

/** The conversation, sent and asked about; everything the server answered, for comparison. */
async function drive(client: SymbiosisClient) {
  const events = client.memoryEvents({})[Symbol.asyncIterator]();
  const seen: unknown[] = [];
  // Until the last write's event (a fact remembered at the end): every earlier one has come by then.
  const collecting = (async () => {
    for (;;) {
      const next = await events.next();
      if (next.done) return;
      const { action, memoryId, memory } = next.value.memoryEvents;
      seen.push({ action, memoryId, content: memory?.content ?? null, status: memory?.status ?? null });
      if (memory?.content === LAST_FACT) return;
    }
  })();
  // The memory events' subscription was sent first on this socket; once another one on it hears
  // a probe, the server listens to both.
  const probe = client.forUser('probe').turnAdded({ sessionId: 'probe' })[Symbol.asyncIterator]();
  let probes = 0;
  await firstEvent(
    probe,
    () => (
      probes++,
      client
        .forUser('probe')
        .addTurn({ input: { sessionId: 'probe', role: Role.User, text: 'ok', autoExtract: false } })
    ),
  );
  await probe.return?.();
  expect(probes).toBeLessThanOrEqual(PROBES);
  for (; probes < PROBES; probes++)
    await client
      .forUser('probe')
      .addTurn({ input: { sessionId: 'probe', role: Role.User, text: 'ok', autoExtract: false } });

  const added = [];
  for (const turn of CONVERSATION) {
    const { addTurn } = await client.addTurn({ input: { ...turn, role: Role.User, name: 'Alice' } });
    added.push({
      turn: addTurn.turn,
      extracted: addTurn.extracted.map((e) => ({ action: e.action, content: e.memory?.content })),
    });
  }
  await client.runJobs(); // entity recognition and the rest of what the turns queued
  const searches = Object.fromEntries(
    await Promise.all(
      ['where does Alice live', 'Joana Pereira', 'hiking with the dog', 'what does Alice eat', 'nurse hospital'].map(
        async (query) => [
          query,
          (await client.search({ query, limit: 8 })).search.map((hit) => ({
            kind: hit.kind,
            id: hit.id,
            text: hit.text,
            signals: hit.signals.map((s) => s.signal),
          })),
        ],
      ),
    ),
  );
  const { context } = await client.context({
    sessionId: 'a2',
    query: 'where does Alice live and work',
    tokenBudget: 400,
  });
  await client.remember({ input: { content: LAST_FACT } });
  await Promise.race([
    collecting,
    new Promise((_, reject) =>
      setTimeout(() => reject(new Error(`no memory event for the last fact; heard ${JSON.stringify(seen)}`)), 10_000),
    ),
  ]);
  await events.return?.();
  return { added, searches, context, events: seen, stats: (await client.stats()).stats };
}

/**
 * Searches compared hit for hit (the same hits, found by the same signals, the same best hit),
 * but not the order of the rest: SQLite ranks the words of a user who holds most of a table's
 * rows with FTS5's own bm25(), Postgres with text-index/bm25.ts, whose IDF of a word in most rows
 * stays above FTS5's floor and whose lengths leave out stop words, so two hits matching only such
 * a word can swap places ('where does Alice live': facts 2 and 3, ranks 3 and 4).
 */
const ranked = (searches: Record<string, { kind: string; id: number }[]>) =>
  Object.fromEntries(
    Object.entries(searches).map(([query, hits]) => [
      query,
      { best: hits[0], hits: [...hits].sort((a, b) => a.kind.localeCompare(b.kind) || a.id - b.id) },
    ]),
  );

/**
 * A context compared but for its memories' access counts: the searches just before it record
 * accesses that are written on the next tick, or later while reads are under way (SQLite's read
 * workers), so whether the context's read sees them is timing, not the backend.
 */
const withoutAccessCounts = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(withoutAccessCounts)
    : value && typeof value === 'object'
      ? Object.fromEntries(
          Object.entries(value).map(([k, v]) => [k, k === 'accessCount' ? null : withoutAccessCounts(v)]),
        )
      : value;

describe('sm serve on Postgres', () => {
  it('answers the generated client as sm serve on a SQLite file does: turns, facts, memory events over WebSocket, search and context', {
    timeout: 180_000,
  }, async () => {
    const url = await postgres.createDatabase('served');
    const [onPostgres, onSqlite] = await Promise.all([
      serve(null, { SM_DATABASE_URL: url, SM_DB: '' }).then(drive),
      serve(join(mkdtempSync(join(tmpdir(), 'sm-pg-serve-')), 'memory.db'), {}).then(drive),
    ]);
    expect(onPostgres.added.flatMap((a) => a.extracted).length).toBeGreaterThan(3);
    expect(onPostgres.events.length).toBeGreaterThan(3);
    expect(onPostgres.events).toContainEqual(
      expect.objectContaining({ action: 'CREATED', content: 'Alice moved to Porto' }),
    );
    expect(onPostgres.context.markdown).toMatch(/Porto/);
    // Stats but what is no answer: whether this backend could search vectors (Debian's Postgres
    // has no pgvector), and how long extraction took.
    const counts = (stats: typeof onSqlite.stats) => ({
      ...stats,
      features: null,
      extraction: stats.extraction.map((e) => ({ ...e, averageMs: null })),
    });
    for (const key of Object.keys(onSqlite) as (keyof typeof onSqlite)[]) {
      const [a, b] =
        key === 'stats'
          ? [counts(onPostgres.stats), counts(onSqlite.stats)]
          : key === 'searches'
            ? [ranked(onPostgres.searches), ranked(onSqlite.searches)]
            : key === 'context'
              ? [withoutAccessCounts(onPostgres.context), withoutAccessCounts(onSqlite.context)]
              : [onPostgres[key], onSqlite[key]];
      expect.soft(a, key).toEqual(b);
    }
  });
});
