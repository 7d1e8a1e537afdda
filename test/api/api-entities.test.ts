// Entities over the API: by id or name with the memories and turns that mention them (paged),
// the searchable list, and Memory.entities / Turn.entities through the same core reads.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Role, type SymbiosisClient } from '../../client/src/index.ts';
import { failure, startServer, type TestServer } from '../helpers/api-server.ts';

let server: TestServer;
let client: SymbiosisClient;

beforeAll(async () => {
  server = await startServer({ config: { extractor: { mode: 'heuristic' } } });
  client = server.client();
  await client.addTurn({
    input: {
      sessionId: 'e1',
      role: Role.User,
      text: 'My sister Alice lives in Paris. I met Alice yesterday and I like #hiking.',
    },
  });
  await client.addTurn({ input: { sessionId: 'e1', role: Role.Assistant, text: 'How is Alice doing in Paris?' } });
  await client.addTurn({ input: { sessionId: 'e2', role: Role.User, text: 'Alice called me about #hiking again.' } });
  // People and places come from the accurate NER pass, a background job (the test server runs no worker).
  await client.runJobs();
});
afterAll(() => server.close());

describe('entities', () => {
  it('finds an entity by name (any case) with the turns and memories that mention it', async () => {
    const { entity } = await client.entity({ name: 'alice' });
    expect(entity).toMatchObject({ name: 'Alice', type: 'person' });
    expect(entity.mentionCount).toBeGreaterThanOrEqual(3);
    expect(entity.turns.totalCount).toBe(3);
    // Most recent first.
    expect(entity.turns.edges.map((e) => e.node.text)).toEqual([
      'Alice called me about #hiking again.',
      'How is Alice doing in Paris?',
      'My sister Alice lives in Paris. I met Alice yesterday and I like #hiking.',
    ]);
    expect(entity.memories.totalCount).toBeGreaterThanOrEqual(1);
    expect(entity.memories.edges.every((e) => /alice/i.test(e.node.content))).toBe(true);

    const byId = await client.entity({ id: entity.id });
    expect(byId.entity).toMatchObject({ id: entity.id, name: 'Alice' });
  });

  it("pages an entity's turns and memories with cursors", async () => {
    const first = (await client.entity({ name: 'Alice', first: 2 })).entity.turns;
    expect(first.edges).toHaveLength(2);
    expect(first.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    const next = (await client.entity({ name: 'Alice', first: 2, turnsAfter: first.pageInfo.endCursor })).entity.turns;
    expect(next.edges.map((e) => e.node.text)).toEqual([
      'My sister Alice lives in Paris. I met Alice yesterday and I like #hiking.',
    ]);
    expect(next.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    const counts = (await client.entity({ name: 'Alice', first: 0 })).entity;
    expect(counts.turns).toMatchObject({ totalCount: 3, edges: [] });
  });

  it('is NOT_FOUND for an unknown entity and BAD_USER_INPUT without exactly one of id and name', async () => {
    expect((await failure(client.entity({ name: 'Nobody Atall' }))).code).toBe('NOT_FOUND');
    expect((await failure(client.entity({ id: 999_999 }))).code).toBe('NOT_FOUND');
    expect((await failure(client.entity({}))).code).toBe('BAD_USER_INPUT');
    expect((await failure(client.entity({ id: 1, name: 'Alice' }))).code).toBe('BAD_USER_INPUT');
    expect((await failure(client.entity({ name: 'Alice', type: 'planet' }))).message).toMatch(/^type: must be one of/);
  });

  it('lists entities, most mentioned first, filtered by text and type, a page at a time', async () => {
    const all = (await client.entities({})).entities;
    expect(all.totalCount).toBeGreaterThanOrEqual(3);
    const mentions = all.edges.map((e) => e.node.mentionCount);
    expect(mentions).toEqual([...mentions].sort((a, b) => b - a));
    expect(all.edges.map((e) => e.node.name)).toEqual(expect.arrayContaining(['Alice', 'Paris', 'hiking']));

    const hashtags = (await client.entities({ type: 'hashtag' })).entities;
    expect(hashtags.edges.map((e) => e.node.name)).toEqual(['hiking']);
    const found = (await client.entities({ q: 'ARI' })).entities;
    expect(found.edges.map((e) => e.node.name)).toContain('Paris');

    const page = (await client.entities({ first: 1 })).entities;
    const rest = (await client.entities({ first: 100, after: page.pageInfo.endCursor })).entities;
    expect(rest.edges.map((e) => e.node.id)).not.toContain(page.edges[0]!.node.id);
    expect(page.edges.length + rest.edges.length).toBe(all.totalCount);
    expect((await failure(client.entities({ type: 'planet' }))).code).toBe('BAD_USER_INPUT');
  });

  it('Memory.entities and Turn.entities resolve through the entity reads', async () => {
    const { entity } = await client.entity({ name: 'Alice' });
    const memoryId = entity.memories.edges[0]!.node.id;
    const { memory } = await client.memory({ id: memoryId });
    expect(memory?.entities.map((e) => e.name)).toContain('Alice');
    const { data } = (
      await server.graphql('{ turns(sessionId: "e2") { edges { node { text entities { name type } } } } }')
    ).body;
    expect(data.turns.edges[0].node.entities).toEqual(
      expect.arrayContaining([
        { name: 'Alice', type: 'person' },
        { name: 'hiking', type: 'hashtag' },
      ]),
    );
  });
});
