// Context packing through the public interfaces: GraphQL over a listening server and the real
// `sm`. One ranked list of facts and turns fills the token budget (counted with o200k_base),
// every item dated; a fact and its own source turn both only when there is room; an empty query
// gives a recency-based block; a budget out of range is BAD_USER_INPUT and changes nothing;
// another user's memory never appears.
import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Role, SearchKind, ContextItemReason, type SymbiosisClient } from '../../client/src/index.ts';
import { DEFAULT_SPACE } from '../../server/core/kernel/space.ts';
import { countTokens } from '../../server/core/text/token-count.ts';
import { closeStore, openStore } from '../../server/storage/sqlite/open.ts';
import { ingestTurn } from '../../server/services/ingest.ts';
import { createRuntime } from '../../server/services/runtime.ts';
import { failure, startServer, type TestServer } from '../helpers/api-server.ts';
import { sm } from '../helpers/sm-cli.ts';

const BOB = 'bob';
const BOB_MARKERS = ['zebrafish', 'Bobrowski', 'Quokka'];
const DAY = /\d{4}-\d{2}-\d{2}/.source;

/** Turns about everyday things, all different, so that a budget has more candidates than room. */
const PLACES = [
  'the market',
  'the harbour',
  'the old library',
  'a jazz bar',
  'the botanical garden',
  'a ramen place',
  'the climbing gym',
  'the flea market',
];
const FRIENDS = ['Ines', 'Tomas', 'Beatriz', 'Rui', 'Marta', 'Joao', 'Clara', 'Nuno'];
const fillerTurn = (i: number) =>
  `On the ${i + 1}th evening I went to ${PLACES[i % PLACES.length]} with ${FRIENDS[(i * 3) % FRIENDS.length]} and we talked about ${['books', 'music', 'football', 'recipes', 'travel'][i % 5]} for hours.`;

type Seed = { sessionId: string; at: string; name: string; text: string };

/** Sam's history: a dog, a move (Lisbon, then Porto), and many ordinary evenings. Bob: his own dog. */
function history(): { sam: Seed[]; bob: Seed[] } {
  const sam: Seed[] = [
    { sessionId: 'may', at: '2023-05-08T13:56:00.000Z', name: 'Sam', text: 'I adopted a dog named Rex last week.' },
    { sessionId: 'may', at: '2023-05-08T13:57:00.000Z', name: 'Sam', text: 'I love walking Rex on the beach.' },
    {
      sessionId: 'may',
      at: '2023-05-08T13:58:00.000Z',
      name: 'Sam',
      text: 'Rex chewed my new running shoes yesterday.',
    },
    { sessionId: 'may', at: '2023-05-08T13:59:00.000Z', name: 'Sam', text: 'I live in Lisbon now.' },
    { sessionId: 'june', at: '2023-06-10T09:00:00.000Z', name: 'Sam', text: 'I moved to Porto.' },
  ];
  for (let i = 0; i < 60; i++)
    sam.push({
      sessionId: 'evenings',
      at: new Date(Date.UTC(2023, 6, 1 + i, 20)).toISOString(),
      name: 'Sam',
      text: fillerTurn(i),
    });
  const bob: Seed[] = [
    {
      sessionId: 'may',
      at: '2023-05-09T10:00:00.000Z',
      name: 'Zoltan Bobrowski',
      text: 'My dog Rex loves zebrafish and Quokka treats.',
    },
    { sessionId: 'may', at: '2023-05-09T10:01:00.000Z', name: 'Zoltan Bobrowski', text: 'I live in Quokka Bay.' },
  ];
  return { sam, bob };
}

describe('context over GraphQL', () => {
  let server: TestServer;
  let client: SymbiosisClient;
  const fingerprint = () =>
    createHash('sha256')
      .update(
        JSON.stringify(
          ['turns', 'memories', 'sessions', 'memory_events', 'memory_sources'].map((t) =>
            server.store.sqlite.prepare(`select * from ${t} order by rowid`).all(),
          ),
        ),
      )
      .digest('hex');

  beforeAll(async () => {
    server = await startServer({ config: { extractor: { mode: 'heuristic' } } });
    client = server.client();
    const { sam, bob } = history();
    for (const t of sam)
      await client.addTurn({
        input: { sessionId: t.sessionId, role: Role.User, name: t.name, text: t.text, at: t.at },
      });
    for (const t of bob)
      await client
        .forUser(BOB)
        .addTurn({ input: { sessionId: t.sessionId, role: Role.User, name: t.name, text: t.text, at: t.at } });
  }, 120_000);
  afterAll(() => server.close());

  it('fills the budget best value first, every item dated, the block counted whole', async () => {
    for (const tokenBudget of [500, 1000]) {
      const { context } = await client.context({
        sessionId: 'new-chat',
        query: 'What is the name of my dog?',
        tokenBudget,
      });
      expect(context).toMatchObject({ tokenBudget, tokenizer: 'o200k_base', query: 'What is the name of my dog?' });
      expect(context.tokensUsed).toBe(countTokens(context.markdown));
      expect(context.tokensUsed).toBeLessThanOrEqual(tokenBudget);
      expect(context.tokensUsed).toBeGreaterThanOrEqual(0.9 * tokenBudget);
      // The standing section opens the block, then the ranked list. The question touches neither of Sam's
      // standing memories (his home, what he loves): their small share holds the newest stated, the other left out.
      expect(context.markdown).toMatch(
        /^## About the user\n- Sam moved to Porto [^\n]*\n- \(1 more about the user not shown\)\n\n## Facts\n/,
      );
      expect(context.markdown).toContain('\n\n## Conversation excerpts\n');
      expect(context.standing.about.items.map((i) => i.kind)).toEqual([SearchKind.Profile]);
      expect(context.standing.about.leftOut).toBe(1);
      const ranked = context.items.filter((i) => i.reason !== ContextItemReason.Standing);
      expect(context.items.slice(0, context.items.length - ranked.length).map((i) => i.id)).toEqual(
        context.standing.about.items.map((i) => i.id),
      );
      const values = ranked.map((i) => i.value);
      expect(values).toEqual([...values].sort((a, b) => b - a));
      for (const item of context.items) {
        expect(context.markdown).toContain(item.line);
        expect(item.tokens).toBe(countTokens(`${item.line}\n`));
        expect(item.at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
        if (item.kind === SearchKind.Turn) expect(item.line).toMatch(new RegExp(`^\\[${DAY}\\] Sam: `));
        if (item.kind === SearchKind.Fact)
          expect(item.line).toMatch(
            new RegExp(`^- .* \\(stated ${DAY}(, about ${DAY})?(, (superseded ${DAY}|replaced ${DAY} by: .*))?\\)$`),
          );
      }
      // The dog is found for the query and ranks first; the rest of the space holds other material.
      const top = ranked[0]!;
      expect(top.reason).toBe(ContextItemReason.Query);
      expect(top.text).toMatch(/Rex/);
      // Each group reads in time order.
      for (const kind of [SearchKind.Fact, SearchKind.Turn]) {
        const group = context.items.filter((i) => i.kind === kind);
        const inBlock = context.markdown.split('\n').flatMap((line) => group.filter((i) => i.line === line));
        expect(inBlock.map((i) => i.at)).toEqual(group.map((i) => i.at).sort());
      }
    }
  });

  it('every item keeps its handle: explain for facts, the turn for turns', async () => {
    const { context } = await client.context({ sessionId: 'new-chat', query: 'Rex the dog', tokenBudget: 300 });
    const fact = context.items.find((i) => i.kind === SearchKind.Fact)!;
    expect((await client.explain({ id: fact.id })).explain.memory?.content).toBe(fact.text);
    expect(fact.sourceTurnIds.length).toBeGreaterThan(0);
    const turn = context.items.find((i) => i.kind === SearchKind.Turn)!;
    const { session } = await client.session({ id: turn.sessionId!, last: 100 });
    expect(session?.turns.edges.map((e) => e.node.id)).toContain(turn.id);
  });

  it('shows a superseded fact as history, with the date it was replaced', async () => {
    const old = (await client.remember({ input: { content: 'Sam buys coffee at Cafe Bettina' } })).remember.memory;
    server.store.clock = { now: () => Date.UTC(2023, 8, 1, 12) };
    try {
      await client.correctMemory({ id: old.id, content: 'Sam buys coffee at Cafe Hartmann' });
    } finally {
      server.store.clock = { now: () => Date.now() };
    }
    const { context } = await client.context({
      sessionId: 'new-chat',
      query: 'Where does Sam buy coffee?',
      tokenBudget: 1000,
    });
    const replaced = context.items.find((i) => i.id === old.id)!;
    expect(replaced).toMatchObject({ kind: SearchKind.Fact, supersededAt: '2023-09-01T12:00:00.000Z' });
    // The old value says it was replaced, when and by what.
    expect(replaced.line).toMatch(
      new RegExp(
        `^- Sam buys coffee at Cafe Bettina \\(stated ${DAY}, replaced 2023-09-01 by: Sam buys coffee at Cafe Hartmann\\)$`,
      ),
    );
    const current = context.items.find((i) => i.text === 'Sam buys coffee at Cafe Hartmann')!;
    expect(current.supersededAt).toBeNull();
    expect(current.value).toBeGreaterThan(replaced.value);
  });

  it('puts a fact and its own source turn both in only when there is room for both', async () => {
    const pairs = <I extends { kind: SearchKind; id: number; sourceTurnIds: number[] }>(items: I[]) => {
      const turns = new Set(items.filter((i) => i.kind === SearchKind.Turn).map((i) => i.id));
      return items.filter(
        (i) => i.kind === SearchKind.Fact && i.sourceTurnIds.length > 0 && i.sourceTurnIds.every((id) => turns.has(id)),
      );
    };
    const tight = (await client.context({ sessionId: 'new-chat', query: 'Rex the dog', tokenBudget: 80 })).context;
    expect(tight.items.length).toBeGreaterThan(1);
    expect(pairs(tight.items)).toEqual([]);
    const roomy = (await client.context({ sessionId: 'new-chat', query: 'Rex the dog', tokenBudget: 2000 })).context;
    expect(
      pairs(roomy.items)
        .map((i) => i.text)
        .join('\n'),
    ).toMatch(/Sam adopted a dog named Rex/);
  });

  it('an empty query gives a recency-based block; the short-term window stays out of it', async () => {
    const { context } = await client.context({ sessionId: 'evenings', query: '', tokenBudget: 500 });
    expect(context.query).toBeNull();
    expect(context.shortTerm).toHaveLength(60);
    expect(
      context.items.every((i) => i.reason === ContextItemReason.Recency || i.reason === ContextItemReason.Standing),
    ).toBe(true);
    expect(context.items.some((i) => i.reason === ContextItemReason.Recency)).toBe(true);
    const window = new Set(context.shortTerm.map((t) => t.id));
    expect(context.items.some((i) => i.kind === SearchKind.Turn && window.has(i.id))).toBe(false);
    // From another session, the newest turns come first.
    const other = (await client.context({ sessionId: 'new-chat', query: '', tokenBudget: 500 })).context;
    expect(other.tokensUsed).toBeGreaterThanOrEqual(450);
    expect(other.markdown).toContain(`[2023-08-29] Sam: ${fillerTurn(59)}`);
    expect(other.markdown).not.toContain(`Sam: ${fillerTurn(0)}`);
  });

  it('a budget out of range is BAD_USER_INPUT naming the argument, and changes nothing', async () => {
    const before = fingerprint();
    for (const [variables, field] of [
      [{ tokenBudget: 49 }, 'tokenBudget'],
      [{ tokenBudget: 32_001 }, 'tokenBudget'],
      [{ tokenBudget: -5 }, 'tokenBudget'],
    ] as const) {
      const error = await failure(client.context({ sessionId: 'new-chat', query: 'Rex', ...variables }));
      expect(error.code).toBe('BAD_USER_INPUT');
      expect(error.message).toMatch(new RegExp(`^${field}: must be at (least 50|most 32000)`));
    }
    // A session id addTurn would refuse is refused here too.
    const longSession = await failure(client.context({ sessionId: 's'.repeat(201), query: 'Rex' }));
    expect(longSession.code).toBe('BAD_USER_INPUT');
    expect(longSession.message).toMatch(/^sessionId: /);
    // The deprecated alias: the same bounds, and not both with different values.
    const raw = await server.graphql('{ context(sessionId: "new-chat", query: "Rex", maxTokens: 20) { markdown } }');
    expect(raw.body.errors?.[0]).toMatchObject({
      message: expect.stringMatching(/^maxTokens: must be at least 50/),
      extensions: { code: 'BAD_USER_INPUT' },
    });
    const both = await server.graphql(
      '{ context(sessionId: "new-chat", query: "Rex", maxTokens: 300, tokenBudget: 400) { markdown } }',
    );
    expect(both.body.errors?.[0].extensions.code).toBe('BAD_USER_INPUT');
    await new Promise((resolve) => setTimeout(resolve, 20)); // access would be written on the next tick
    expect(fingerprint()).toBe(before);
    const alias = await server.graphql(
      '{ context(sessionId: "new-chat", query: "Rex", maxTokens: 300) { tokenBudget markdown } }',
    );
    const named = (await client.context({ sessionId: 'new-chat', query: 'Rex', tokenBudget: 300 })).context;
    expect(alias.body.data.context).toEqual({ tokenBudget: 300, markdown: named.markdown });
  });

  it("never shows another user's memory, and Bob sees his own", async () => {
    for (const query of ['Rex the dog zebrafish Quokka', 'Where does Zoltan Bobrowski live?', '']) {
      const { context } = await client.context({ sessionId: 'may', query, tokenBudget: 2000 });
      const text = JSON.stringify({ ...context, query: null });
      for (const marker of BOB_MARKERS) expect(text, `${query}: ${marker}`).not.toContain(marker);
    }
    const bob = (await client.forUser(BOB).context({ sessionId: 'other', query: 'Rex the dog', tokenBudget: 2000 }))
      .context;
    expect(bob.markdown).toContain('zebrafish');
    expect(bob.markdown).not.toMatch(/Sam|Lisbon|Porto/);
  });
});

describe('sm get-context', () => {
  let db: string;
  /** The file's content, table by table (opening it may touch the file's bytes, never its rows). */
  const fingerprint = () => {
    const file = new Database(db, { readonly: true });
    try {
      return createHash('sha256')
        .update(
          JSON.stringify(
            ['turns', 'memories', 'sessions', 'memory_events', 'memory_sources', 'meta'].map((t) =>
              file.prepare(`select * from ${t} order by rowid`).all(),
            ),
          ),
        )
        .digest('hex');
    } finally {
      file.close();
    }
  };

  beforeAll(async () => {
    db = join(mkdtempSync(join(tmpdir(), 'sm-context-')), 'memory.db');
    const store = await openStore({ path: db, env: {}, config: { extractor: { mode: 'heuristic' } } });
    const runtime = await createRuntime(store, {});
    for (const t of history().sam)
      await ingestTurn(runtime, DEFAULT_SPACE, {
        sessionId: t.sessionId,
        role: 'user',
        name: t.name,
        text: t.text,
        at: Date.parse(t.at),
      });
    await closeStore(store);
  }, 60_000);

  it('packs to --token-budget and prints the block with what it used; --max-tokens still works', {
    timeout: 60_000,
  }, async () => {
    const json = await sm([
      '--db',
      db,
      'get-context',
      '--session',
      'new',
      '--query',
      'What is the name of my dog?',
      '--token-budget',
      '400',
      '--json',
    ]);
    expect(json.code).toBe(0);
    expect(json.json).toMatchObject({ tokenBudget: 400, tokenizer: 'o200k_base' });
    expect(json.json.tokensUsed).toBeLessThanOrEqual(400);
    expect(json.json.tokensUsed).toBeGreaterThanOrEqual(360);
    expect(json.json.items.find((i: { reason: string }) => i.reason !== 'STANDING')).toMatchObject({
      reason: 'QUERY',
      text: expect.stringMatching(/Rex/),
    });
    const alias = await sm([
      '--db',
      db,
      'get-context',
      '--session',
      'new',
      '--query',
      'What is the name of my dog?',
      '--max-tokens',
      '400',
      '--json',
    ]);
    expect(alias.json.markdown).toBe(json.json.markdown);
    const text = await sm(
      [
        '--db',
        db,
        'get-context',
        '--session',
        'new',
        '--query',
        'What is the name of my dog?',
        '--token-budget',
        '400',
      ],
      { NO_COLOR: '1' },
    );
    expect(text.stdout).toContain(json.json.markdown);
    expect(text.stdout.trim().endsWith(`(${json.json.tokensUsed} of 400 tokens, o200k_base)`)).toBe(true);
  });

  it('a budget out of range exits 2 naming --token-budget, and leaves the file as it was', {
    timeout: 60_000,
  }, async () => {
    const before = fingerprint();
    for (const budget of ['49', '32001']) {
      const result = await sm([
        '--db',
        db,
        'get-context',
        '--session',
        'new',
        '--query',
        'dog',
        '--token-budget',
        budget,
      ]);
      expect(result.code).toBe(2);
      expect(result.stderr.trim()).toMatch(/^sm: --token-budget: must be at (least 50|most 32000)/);
      expect(result.stdout).toBe('');
    }
    expect(fingerprint()).toBe(before);
  });
});
