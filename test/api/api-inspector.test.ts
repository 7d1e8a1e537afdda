// The API fields the inspector (web/) reads beyond the basics: memories filtered by supersession,
// the entity co-mention graph, both per space; and subscriptions that end when a tab closes.
import { getEventListeners } from 'node:events';
import { createPubSub } from '@graphql-yoga/subscription';
import { parse, subscribe } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schema, type Context } from '../../server/graphql/index.ts';
import type { ConsolidationChange, MemoryChange, TurnChange } from '../../server/graphql/builder.ts';
import { ADMIN } from '../../server/core/users/tokens.ts';
import { createRuntime } from '../../server/services/runtime.ts';
import { testStore } from '../helpers/store.ts';
import { MemoryStatus, Role, type SymbiosisClient } from '../../client/src/index.ts';
import { failure, startServer, type TestServer } from '../helpers/api-server.ts';

let server: TestServer;
let client: SymbiosisClient;

beforeAll(async () => {
  server = await startServer({ config: { extractor: { mode: 'heuristic' } } });
  client = server.client();
  await client.addTurn({
    input: { sessionId: 'g1', role: Role.User, text: 'My name is Alex. Alice lives in Paris with Bob.' },
  });
  await client.addTurn({ input: { sessionId: 'g1', role: Role.User, text: 'Actually, call me Sam.' } });
  await client.addTurn({
    input: { sessionId: 'g1', role: Role.User, text: 'Alice and Bob visited Berlin with Carol.' },
  });
  await client.addTurn({ input: { sessionId: 'g2', role: Role.User, text: 'Bob moved to Lisbon.' } });
  // Another user's co-mentions never show up.
  await client.addTurn({
    userId: 'other',
    input: { sessionId: 'g1', role: Role.User, text: 'Alice and Bob and Dave met in Rome.' },
  });
  await client.runJobs();
});
afterAll(() => server.close());

describe('memories by supersession', () => {
  it('lists the superseded memories apart from the other archived ones', async () => {
    const archived = await client.memories({ status: MemoryStatus.Archived, first: 50 });
    const superseded = await client.memories({ status: MemoryStatus.Archived, superseded: true, first: 50 });
    const others = await client.memories({ status: MemoryStatus.Archived, superseded: false, first: 50 });
    expect(superseded.memories.edges.map((e) => e.node.content)).toEqual(["User's name is Alex"]);
    expect(superseded.memories.totalCount + others.memories.totalCount).toBe(archived.memories.totalCount);
    const active = await client.memories({ superseded: true, first: 50 });
    expect(active.memories.totalCount).toBe(0);
    const { memory } = await client.memory({ id: superseded.memories.edges[0]!.node.id });
    expect(memory?.supersededBy.map((m) => m.content)).toEqual(["User's name is Sam"]);
  });
});

describe('entity graph', () => {
  it('links the most mentioned entities mentioned together, heaviest first, in the space only', async () => {
    const { entityGraph } = await client.entityGraph({ first: 20 });
    const name = new Map(entityGraph.nodes.map((n) => [n.id, n.name] as const));
    expect([...name.values()]).toEqual(expect.arrayContaining(['Alice', 'Bob', 'Paris', 'Berlin']));
    expect([...name.values()]).not.toContain('Dave');
    const pairs = entityGraph.links.map((l) => [name.get(l.sourceId), name.get(l.targetId)].sort().join('+'));
    expect(pairs).toContain('Alice+Bob');
    // Every link joins two nodes, smaller id first, with a positive weight; heaviest first.
    for (const link of entityGraph.links) {
      expect(name.has(link.sourceId) && name.has(link.targetId)).toBe(true);
      expect(link.sourceId).toBeLessThan(link.targetId);
      expect(link.memories + link.turns).toBeGreaterThan(0);
    }
    const weights = entityGraph.links.map((l) => l.memories + l.turns);
    expect(weights).toEqual([...weights].sort((a, b) => b - a));
    const aliceBob = entityGraph.links[pairs.indexOf('Alice+Bob')]!;
    expect(aliceBob.turns).toBe(2);
  });

  it('around an entity: that entity first, then the ones mentioned with it', async () => {
    const { entity } = await client.entity({ name: 'Carol' });
    const { entityGraph } = await client.entityGraph({ around: entity.id, first: 10 });
    expect(entityGraph.nodes[0]!.name).toBe('Carol');
    expect(entityGraph.nodes.map((n) => n.name).sort()).toEqual(['Alice', 'Berlin', 'Bob', 'Carol']);
    expect(entityGraph.links.filter((l) => l.sourceId === entity.id || l.targetId === entity.id)).toHaveLength(3);
    const lisbon = await client.entity({ name: 'Lisbon' });
    expect((await client.entityGraph({ around: lisbon.entity.id })).entityGraph.nodes.map((n) => n.name)).toEqual([
      'Lisbon',
      'Bob',
    ]);
    // Another user's entity id reads as unknown: an empty graph.
    const dave = await client.forUser('other').entity({ name: 'Dave' });
    expect(await client.entityGraph({ around: dave.entity.id })).toEqual({ entityGraph: { nodes: [], links: [] } });
  });

  it('refuses a size out of range', async () => {
    expect((await failure(client.entityGraph({ first: 0 }))).code).toBe('BAD_USER_INPUT');
    expect((await failure(client.entityGraph({ first: 201 }))).code).toBe('BAD_USER_INPUT');
  });
});

describe('subscriptions let go at once', () => {
  // A browser tab that closes ends its subscription while it waits for an event: its listener
  // must go then, not when the next event comes (an async generator would keep it until then).
  it.each([
    'subscription { memoryEvents { action } }',
    'subscription { turnAdded { id } }',
    'subscription { consolidationEvents { status } }',
  ])('%s', async (query) => {
    const t = await testStore({ extractor: { mode: 'heuristic' } });
    const eventTarget = new EventTarget();
    const changes = createPubSub<{ memory: [MemoryChange]; turn: [TurnChange]; consolidation: [ConsolidationChange] }>({
      eventTarget,
    });
    const topic =
      /\{ (\w+)/.exec(query)![1] === 'memoryEvents' ? 'memory' : query.includes('turnAdded') ? 'turn' : 'consolidation';
    const contextValue: Context = { store: t.store, runtime: await createRuntime(t.store, {}), changes, access: ADMIN };
    const stream = (await subscribe({ schema, document: parse(query), contextValue })) as AsyncGenerator;
    expect(Symbol.asyncIterator in stream).toBe(true);
    const waiting = stream.next();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(getEventListeners(eventTarget, topic)).toHaveLength(1);
    await stream.return(undefined);
    expect(await waiting).toMatchObject({ done: true });
    expect(getEventListeners(eventTarget, topic)).toHaveLength(0);
  });
});
