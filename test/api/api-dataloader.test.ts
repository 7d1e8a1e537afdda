// No N+1: nested lists are batched per request (DataLoader), so a query over many memories
// runs the same number of SQL statements as over a few.
import { DEFAULT_SPACE } from '../../server/core/kernel/space.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entities, memoryEntities, turnEntities } from '../../drizzle/schema.ts';
import { insertMemory } from '../../server/core/memory/memories.ts';
import { write } from '../../server/core/kernel/store.ts';
import { addTurn } from '../../server/core/turns/turns.ts';
import { startServer, type TestServer } from '../helpers/api-server.ts';

let server: TestServer;

/**
 * Counts SQL statements executed while `fn` runs: every run/get/all/iterate of any prepared
 * statement (cached or not) on the server's connection.
 */
async function countStatements(fn: () => Promise<unknown>) {
  const proto = Object.getPrototypeOf(server.store.sqlite.prepare('select 1')) as Record<
    string,
    (...args: unknown[]) => unknown
  >;
  const methods = ['run', 'get', 'all', 'iterate'] as const;
  const originals = methods.map((name) => proto[name]!);
  let count = 0;
  methods.forEach((name, i) => {
    proto[name] = function (this: unknown, ...args: unknown[]) {
      count++;
      return originals[i]!.apply(this, args);
    };
  });
  try {
    await fn();
  } finally {
    methods.forEach((name, i) => (proto[name] = originals[i]!));
  }
  return count;
}

beforeAll(async () => {
  server = await startServer();
  const { store } = server;
  await write(store, async () => {
    const now = store.clock.now();
    for (let i = 0; i < 50; i++) {
      const { turn } = await addTurn(store, DEFAULT_SPACE, {
        sessionId: `s${i % 5}`,
        role: 'user',
        text: `Turn ${i} about Paris`,
        autoExtract: false,
      });
      const memory = await insertMemory(
        store,
        DEFAULT_SPACE,
        { content: `Memory ${i}` },
        { turnId: turn.id, reason: 'extracted', rule: 'test' },
      );
      const entity = await store.db
        .insert(entities)
        .values({
          name: `Entity ${i}`,
          nameKey: `entity ${i}`,
          type: 'thing',
          createdAt: now,
          updatedAt: now,
          mentionCount: 2,
        })
        .returning()
        .get();
      await store.db.insert(turnEntities).values({ turnId: turn.id, entityId: entity.id }).run();
      await store.db.insert(memoryEntities).values({ memoryId: memory.id, entityId: entity.id }).run();
    }
  });
});
afterAll(() => server.close());

const NESTED = `query ($first: Int!) {
  memories(first: $first, sort: RECENT) {
    edges { node {
      id content
      session { id turnCount }
      entities { name }
      supersedes { id }
      sources { reason turn { id text session { id } entities { name type } } }
    } }
  }
}`;

describe('DataLoader batching', () => {
  it('memories -> sources -> turn -> entities runs a constant number of statements', async () => {
    let few: any;
    let many: any;
    const small = await countStatements(async () => (few = await server.graphql(NESTED, { first: 5 })));
    const large = await countStatements(async () => (many = await server.graphql(NESTED, { first: 50 })));
    expect(few.body.errors).toBeUndefined();
    expect(many.body.errors).toBeUndefined();
    const nodes = many.body.data.memories.edges.map((e: any) => e.node);
    expect(nodes).toHaveLength(50);
    for (const node of nodes) {
      const i = Number(node.content.split(' ')[1]);
      expect(node.sources).toEqual([
        {
          reason: 'EXTRACTED',
          turn: {
            id: expect.any(Number),
            text: `Turn ${i} about Paris`,
            session: { id: `s${i % 5}` },
            entities: [{ name: `Entity ${i}`, type: 'thing' }],
          },
        },
      ]);
      expect(node.entities).toEqual([{ name: `Entity ${i}` }]);
    }
    expect(large).toBe(small);
    // list + count, then one batch per nested list: entities, relations, sources, turns, turn entities, sessions (+ turn counts).
    expect(large).toBeLessThanOrEqual(10);
  });

  it('sessions -> turns -> entities is batched too', async () => {
    const query =
      '{ sessions(first: 5) { edges { node { id turnCount turns(last: 3) { totalCount edges { node { text entities { name } } } } } } } }';
    let result: any;
    const statements = await countStatements(async () => (result = await server.graphql(query)));
    expect(result.body.errors).toBeUndefined();
    const sessions = result.body.data.sessions.edges.map((e: any) => e.node);
    expect(sessions).toHaveLength(5);
    for (const s of sessions) {
      expect(s.turnCount).toBe(10);
      expect(s.turns.totalCount).toBe(10);
      expect(s.turns.edges).toHaveLength(3);
    }
    expect(statements).toBeLessThanOrEqual(6);
  });

  it('entities -> memories and turns (pages) is batched too', async () => {
    const query = `query ($first: Int!) { entities(first: $first) { edges { node { name
      memories(first: 2) { totalCount edges { node { content entities { name } } } }
      turns(first: 2) { totalCount edges { node { text session { id } } } } } } } }`;
    let few: any;
    let many: any;
    const small = await countStatements(async () => (few = await server.graphql(query, { first: 5 })));
    const large = await countStatements(async () => (many = await server.graphql(query, { first: 50 })));
    expect(few.body.errors).toBeUndefined();
    expect(many.body.errors).toBeUndefined();
    const nodes = many.body.data.entities.edges.map((e: any) => e.node);
    expect(nodes).toHaveLength(50);
    for (const node of nodes) {
      const i = Number(node.name.split(' ')[1]);
      expect(node.memories).toEqual({
        totalCount: 1,
        edges: [{ node: { content: `Memory ${i}`, entities: [{ name: node.name }] } }],
      });
      expect(node.turns).toEqual({
        totalCount: 1,
        edges: [{ node: { text: `Turn ${i} about Paris`, session: { id: `s${i % 5}` } } }],
      });
    }
    expect(large).toBe(small);
  });
});
