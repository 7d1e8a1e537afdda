// One user's memory never reaches another, by any field: every query, mutation and subscription
// of the schema (read by introspection, so a field added later is covered without editing this
// test) is run with user A's token, its arguments aimed at user B's data, and no string or id of
// B may come back. B's data must also survive everything A's token tried.
import { createClient as createWsClient } from 'graphql-ws';
import {
  buildClientSchema,
  getIntrospectionQuery,
  getNamedType,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLObjectType,
  type GraphQLSchema,
  type IntrospectionQuery,
} from 'graphql';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/api-server.ts';

const ADMIN = 'isolation-admin-token-51f0c2d8e7';
const A = 'alice.a';
const B = 'bob.b';
/** Strings only B's data holds. */
const B_MARKERS = ['zebrafish', 'bobsecret', 'bobrowski', 'bob@example.com', B];
const SHARED_SESSION = 'shared-session';

type Op = {
  field: string;
  kind: 'query' | 'mutation' | 'subscription';
  text: string;
  variables: Record<string, unknown>;
  aimsAtB: boolean;
};

describe('isolation between users, over every field of the schema', () => {
  let server: TestServer;
  let schema: GraphQLSchema;
  let tokenA: string;
  const bIds = { memory: new Set<number>(), turn: new Set<number>(), entity: new Set<number>() };
  let bSnapshot = '';

  const post = async (query: string, variables: Record<string, unknown>, token: string) => {
    const response = await fetch(`${server.base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query, variables }),
    });
    return (await response.json()) as {
      data?: unknown;
      errors?: { message: string; extensions?: { code?: string } }[];
    };
  };

  /** B's data as the admin sees it: what must be unchanged after A's token tried everything. */
  const snapshotOfB = async () =>
    JSON.stringify(
      await post(
        `{ memories(userId: "${B}", status: ARCHIVED, first: 100) { totalCount edges { node { id content status } } }
           active: memories(userId: "${B}", first: 100) { totalCount edges { node { id kind content status confidence decayRate pinned } } }
           profile(userId: "${B}") { total instructions { id content } preferences { id content } pinned { id content } }
           sessions(userId: "${B}") { totalCount edges { node { id turnCount } } }
           entities(userId: "${B}") { totalCount edges { node { id name } } } }`,
        {},
        ADMIN,
      ),
    );

  beforeAll(async () => {
    server = await startServer({ token: ADMIN });
    const admin = server.client();
    const a = admin.forUser(A);
    const b = admin.forUser(B);
    for (const [client, session, lines, speaker] of [
      [
        a,
        SHARED_SESSION,
        ['My name is Quentin Quokkason', 'I live in Quokka Bay', 'I love quokkas'],
        'Quentin Quokkason',
      ],
      [a, 'alice-only', ['I like kayaking'], 'Quentin Quokkason'],
      [
        b,
        SHARED_SESSION,
        ['My name is Zoltan Bobrowski', 'I live in Zebrafish Bay', 'I love zebrafish', 'My email is bob@example.com'],
        'Zoltan Bobrowski',
      ],
      [
        b,
        'bob-only',
        [
          'I live in Bobsecret City now',
          'I met Zoltan Bobrowski at the zebrafish tank',
          'Always mention zebrafish care tips when I ask about pets.',
          'I prefer zebrafish over goldfish.',
        ],
        'Zoltan Bobrowski',
      ],
      [a, 'alice-only', ['Always answer with quokka facts when I ask about animals.'], 'Quentin Quokkason'],
    ] as const) {
      for (const text of lines)
        await client.addTurn({ input: { sessionId: session, role: 'USER', name: speaker, text } });
    }
    const bRemembered = (
      await b.remember({ input: { content: 'Zoltan Bobrowski keeps zebrafish named bobsecret', tags: ['zebrafish'] } })
    ).remember.memory;
    await b.confirmMemory({ id: bRemembered.id });
    await b.correctMemory({ id: bRemembered.id, content: 'Zoltan Bobrowski keeps zebrafish named bobsecret two' });
    const plush = (await a.remember({ input: { content: 'Quentin keeps a quokka plush', tags: ['quokka'] } })).remember
      .memory;
    // Pinned and standing memory on both sides: B's must reach A by no path (profile, context's standing sections, pinning).
    await a.pinMemory({ id: plush.id });
    await b.pinMemory({
      id: (await b.remember({ input: { content: 'Zoltan Bobrowski pinned his bobsecret zebrafish diary' } })).remember
        .memory.id,
    });

    const all = await post(
      `{ memories(userId: "${B}", first: 100, status: ARCHIVED) { edges { node { id } } } active: memories(userId: "${B}", first: 100) { edges { node { id sources { turn { id } } } } }
         entities(userId: "${B}", first: 100) { edges { node { id } } } s1: turns(userId: "${B}", sessionId: "${SHARED_SESSION}", last: 100) { edges { node { id } } }
         s2: turns(userId: "${B}", sessionId: "bob-only", last: 100) { edges { node { id } } } }`,
      {},
      ADMIN,
    );
    const data = all.data as any;
    for (const e of [...data.memories.edges, ...data.active.edges]) bIds.memory.add(e.node.id);
    for (const e of data.entities.edges) bIds.entity.add(e.node.id);
    for (const e of [...data.s1.edges, ...data.s2.edges]) bIds.turn.add(e.node.id);
    expect(bIds.memory.size).toBeGreaterThan(4);
    expect(bIds.turn.size).toBe(8);
    expect(bIds.entity.size).toBeGreaterThan(0);

    tokenA = (await admin.createAccessToken({ userId: A, label: 'isolation' })).createAccessToken.token;
    const introspection = await post(getIntrospectionQuery(), {}, tokenA);
    schema = buildClientSchema(introspection.data as IntrospectionQuery);
    bSnapshot = await snapshotOfB();
  });
  afterAll(() => server.close());

  /** A value for an argument of `type`, aimed at B's data where the name says what it is. */
  function values(name: string, type: GraphQLInputType, kind: Op['kind'], inInput = false): unknown[] {
    const inner = getNullableType(type);
    // A list of enum values (a filter such as memoryEvents' actions) takes them all.
    const listed = isListType(inner) ? getNamedType(inner) : null;
    if (listed && isEnumType(listed)) return [listed.getValues().map((v) => v.value)];
    if (isListType(inner)) return values(name, inner.ofType, kind, inInput).map((v) => [v]);
    const named = getNamedType(inner);
    if (isEnumType(named)) return [named.getValues()[0]!.value];
    if (isInputObjectType(named)) {
      const object: Record<string, unknown> = {};
      for (const field of Object.values(named.getFields())) {
        if (isNonNullType(field.type) && field.defaultValue === undefined)
          object[field.name] = values(field.name, field.type, kind, true)[0];
      }
      return [object];
    }
    switch (named.name) {
      case 'Int':
        if (/^(id|memoryId)$/.test(name)) return [...bIds.memory, ...bIds.turn, ...bIds.entity];
        if (/^(first|last|k|limit)$/.test(name)) return [5];
        return [1];
      case 'Float':
        return [0.5];
      case 'Boolean':
        return [false];
      case 'DateTime':
        return [new Date(Date.UTC(2020, 0, 1)).toISOString()];
      case 'JSON':
        return [{}];
      default:
        if (name === 'userId') return [A];
        if (name === 'agentId') return [];
        if (/session/i.test(name) || name === 'id') return [SHARED_SESSION, 'bob-only'];
        if (name === 'name') return ['Zoltan Bobrowski', 'Bobrowski'];
        // Writes carry A's own words (a write that echoes B's marker would prove nothing); reads and forget(text) aim at B's.
        if (kind === 'mutation' && (inInput || name !== 'text')) return ['a quokka note'];
        return ['zebrafish bobsecret'];
    }
  }

  /** Every scalar of `type` and its objects to `depth`, with __typename: ids and texts of nested rows included. */
  function selection(type: GraphQLObjectType, depth: number): string {
    const parts = ['__typename'];
    for (const field of Object.values(type.getFields())) {
      if (field.args.some((a) => isNonNullType(a.type) && a.defaultValue === undefined)) continue;
      const named = getNamedType(field.type);
      if (isScalarType(named) || isEnumType(named)) parts.push(field.name);
      else if (isObjectType(named) && depth > 0 && field.name !== 'why')
        parts.push(`${field.name} { ${selection(named, depth - 1)} }`);
    }
    return parts.join(' ');
  }

  function operations(kind: Op['kind'], root: GraphQLObjectType | null | undefined): { ops: Op[]; unbuilt: string[] } {
    const ops: Op[] = [];
    const unbuilt: string[] = [];
    for (const field of Object.values(root?.getFields() ?? {}) as GraphQLField<unknown, unknown>[]) {
      const named = getNamedType(field.type);
      const select = isObjectType(named) ? ` { ${selection(named, kind === 'query' ? 2 : 1)} }` : '';
      const args = field.args.filter((a) => a.name !== 'agentId');
      // Every argument gets a value where one can be made (optional ones too: ids and texts aimed at B).
      const choices = args.map((a: GraphQLArgument) => ({ arg: a, options: values(a.name, a.type, kind) }));
      if (choices.some((c) => c.options.length === 0 && isNonNullType(c.arg.type))) {
        unbuilt.push(field.name);
        continue;
      }
      const variants = Math.max(1, ...choices.map((c) => c.options.length));
      const declare = (a: GraphQLArgument) => `$${a.name}: ${a.type.toString()}`;
      const used = choices.filter((c) => c.options.length > 0);
      for (let v = 0; v < variants; v++) {
        const variables = Object.fromEntries(
          used.map((c) => [c.arg.name, c.options[Math.min(v, c.options.length - 1)]]),
        );
        const head = used.length ? `(${used.map((c) => declare(c.arg)).join(', ')})` : '';
        const call = used.length ? `(${used.map((c) => `${c.arg.name}: $${c.arg.name}`).join(', ')})` : '';
        ops.push({
          field: field.name,
          kind,
          text: `${kind} op${head} { ${field.name}${call}${select} }`,
          variables,
          aimsAtB: false,
        });
      }
      // The same field naming B's user outright, its other arguments left at their defaults: a user token may not.
      const userArg = field.args.find((a) => a.name === 'userId');
      if (userArg) {
        const required = used.filter(
          (c) => c.arg !== userArg && isNonNullType(c.arg.type) && c.arg.defaultValue === undefined,
        );
        const variables = Object.fromEntries(required.map((c) => [c.arg.name, c.options[0]]));
        const head = `(${[...required.map((c) => declare(c.arg)), declare(userArg)].join(', ')})`;
        const call = `(${[...required.map((c) => `${c.arg.name}: $${c.arg.name}`), 'userId: $userId'].join(', ')})`;
        ops.push({
          field: field.name,
          kind,
          text: `${kind} op${head} { ${field.name}${call}${select} }`,
          variables: { ...variables, userId: B },
          aimsAtB: true,
        });
      }
    }
    return { ops, unbuilt };
  }

  /** Every leak of B into a response: a marker string, a row of B's user, or one of B's ids. */
  function leaks(value: unknown, path = ''): string[] {
    const found: string[] = [];
    const visit = (node: unknown, at: string) => {
      if (typeof node === 'string') {
        const lower = node.toLowerCase();
        for (const marker of B_MARKERS) if (lower.includes(marker)) found.push(`${at}: ${node.slice(0, 80)}`);
        return;
      }
      if (Array.isArray(node)) return node.forEach((item, i) => visit(item, `${at}[${i}]`));
      if (node && typeof node === 'object') {
        const record = node as Record<string, unknown>;
        const typename = record.__typename;
        const id = record.id;
        if (typeof id === 'number') {
          const kind =
            typename === 'Memory' ? 'memory' : typename === 'Turn' ? 'turn' : typename === 'Entity' ? 'entity' : null;
          if (kind && bIds[kind].has(id)) found.push(`${at}: ${typename} ${id} of ${B}`);
        }
        for (const key of ['memoryId', 'turnId', 'entityId'] as const) {
          const ref = record[key];
          if (
            typeof ref === 'number' &&
            bIds[key === 'memoryId' ? 'memory' : key === 'turnId' ? 'turn' : 'entity'].has(ref)
          )
            found.push(`${at}.${key}: ${ref} of ${B}`);
        }
        for (const [key, child] of Object.entries(record)) visit(child, `${at}.${key}`);
      }
    };
    visit(value, path);
    return found;
  }

  it("A's token pins, unpins or rewords none of B's memories (NOT_FOUND, as an unknown id), and A's profile and context hold none of B's", async () => {
    const a = server.client(tokenA);
    const ids = [...bIds.memory];
    expect(ids.length).toBeGreaterThan(4);
    for (const id of ids) {
      for (const attempt of [
        a.pinMemory({ id }),
        a.unpinMemory({ id }),
        a.editInstruction({ id, content: 'a quokka note' }),
      ]) {
        const error = await attempt.then(
          () => null,
          (e: { code?: string }) => e,
        );
        expect(error?.code, `memory ${id}`).toBe('NOT_FOUND');
      }
    }
    const unknown = await a.pinMemory({ id: 987_654 }).then(
      () => null,
      (e: { code?: string; message: string }) => e,
    );
    expect(unknown?.code).toBe('NOT_FOUND');
    const { profile } = await a.profile();
    expect(profile.instructions.map((m) => m.content)).toEqual([
      'Always answer with quokka facts when I ask about animals.',
    ]);
    expect(profile.pinned.map((m) => m.content)).toEqual(['Quentin keeps a quokka plush']);
    const { context } = await a.context({ sessionId: 'alice-only', query: 'pets and animals', tokenBudget: 2000 });
    expect(context.standing.instructions.items.map((i) => i.text)).toEqual([
      'Always answer with quokka facts when I ask about animals.',
    ]);
    expect(leaks({ profile, context })).toEqual([]);
    expect(await snapshotOfB()).toBe(bSnapshot);
  });

  // Before the test below, whose writes with A's token may forget A's own data.
  it("digests and timelines with A's token hold A's turns only, for a session id both users have", async () => {
    const asked = await post(
      `{ timeline: context(sessionId: "now", query: "Walk me through how the zebrafish and quokka things progressed, in order", tokenBudget: 800) { markdown timeline { sessionId text turnIds } }
         mine: context(sessionId: "now", query: "Summarize everything about quokkas over time") { timeline { sessionId text } }
         session(id: "${SHARED_SESSION}") { digest { sessionId lines { text turnIds } } } }`,
      {},
      tokenA,
    );
    expect(asked.errors).toBeUndefined();
    const data = asked.data as any;
    // Not vacuous: A's own sessions give A a timeline and a digest.
    expect(data.mine.timeline.length).toBeGreaterThan(0);
    expect(data.timeline.timeline.length).toBeGreaterThan(0);
    expect(data.session.digest.lines.map((l: { text: string }) => l.text)).toEqual(
      ['My name is Quentin Quokkason', 'I live in Quokka Bay', 'I love quokkas'].map((t) => `Quentin Quokkason: ${t}`),
    );
    expect(leaks(data, 'digests')).toEqual([]);
    // Naming B outright is refused.
    const refused = await post(
      `{ session(id: "${SHARED_SESSION}", userId: "${B}") { digest { lines { text } } } }`,
      {},
      tokenA,
    );
    expect(refused.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });

  it("queries and mutations with A's token never return B's data, and naming B is FORBIDDEN", {
    timeout: 60_000,
  }, async () => {
    const queries = operations('query', schema.getQueryType());
    const mutations = operations('mutation', schema.getMutationType());
    const subscriptions = operations('subscription', schema.getSubscriptionType());
    // The generator must reach every root field: one it cannot build is a gap in this test.
    expect([...queries.unbuilt, ...mutations.unbuilt, ...subscriptions.unbuilt]).toEqual([]);
    const fields = new Set([...queries.ops, ...mutations.ops].map((op) => op.field));
    expect(fields.size).toBe(
      Object.keys(schema.getQueryType()!.getFields()).length +
        Object.keys(schema.getMutationType()!.getFields()).length,
    );

    const found: string[] = [];
    let forbidden = 0;
    let answered = 0;
    // Reads first, then writes (a write may remove A's own rows that later reads would have shown).
    for (const op of [...queries.ops, ...mutations.ops]) {
      const result = await post(op.text, op.variables, tokenA);
      const codes = (result.errors ?? []).map((e) => e.extensions?.code);
      expect(
        codes.every((code) => typeof code === 'string'),
        `${op.field}: every error has a code ${JSON.stringify(result.errors)}`,
      ).toBe(true);
      expect(codes, `${op.field}: nothing unexpected ${JSON.stringify(result.errors)}`).not.toContain(
        'INTERNAL_SERVER_ERROR',
      );
      if (op.aimsAtB) {
        // Refused: FORBIDDEN, or BAD_USER_INPUT where the arguments left at their defaults are not a valid call (forget needs an id or a text).
        expect(
          codes.some((code) => code === 'FORBIDDEN' || code === 'BAD_USER_INPUT'),
          `${op.field} with userId ${B}: ${JSON.stringify(result)}`,
        ).toBe(true);
        if (codes.includes('FORBIDDEN')) forbidden++;
      }
      if (result.data && Object.values(result.data).some((v) => v !== null)) answered++;
      found.push(
        ...leaks(result.data, op.field),
        ...leaks(
          result.errors?.map((e) => e.extensions ?? {}),
          `${op.field}.errors`,
        ),
      );
    }
    expect(found).toEqual([]);
    expect(forbidden).toBeGreaterThan(15);
    // Not vacuous: A's own reads answered with data.
    expect(answered).toBeGreaterThanOrEqual(15);
    const mine = await post('{ memories(first: 50) { edges { node { content userId } } } }', {}, tokenA);
    expect(JSON.stringify(mine.data)).toContain('quokka');
    // Whatever A's token did (forget by text, correct, confirm, update, gc, consolidate, forgetUser...), B's data is as it was.
    expect(await snapshotOfB()).toBe(bSnapshot);
  });

  it("subscriptions with A's token carry A's events and never B's", { timeout: 30_000 }, async () => {
    const { ops } = operations('subscription', schema.getSubscriptionType());
    const ws = createWsClient({
      url: server.url.replace(/^http/, 'ws'),
      webSocketImpl: WebSocket,
      connectionParams: { token: tokenA },
      retryAttempts: 0,
    });
    const received: { field: string; payload: unknown }[] = [];
    const stops: (() => void)[] = [];
    const errors: string[] = [];
    for (const op of ops) {
      stops.push(
        ws.subscribe(
          { query: op.text, variables: op.variables },
          {
            next: (payload) => received.push({ field: op.field, payload }),
            error: (error) => errors.push(`${op.field}${op.aimsAtB ? ' (userId B)' : ''}: ${JSON.stringify(error)}`),
            complete: () => {},
          },
        ),
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 500)); // the server starts listening a moment later
    const admin = server.client();
    for (let i = 0; i < 3; i++) {
      // The rows B gets now are B's too: their ids must not reach A either.
      const { addTurn } = await admin
        .forUser(B)
        .addTurn({ input: { sessionId: SHARED_SESSION, role: 'USER', text: `I love zebrafish tanks number ${i}` } });
      bIds.turn.add(addTurn.turn.id);
      for (const e of addTurn.extracted) bIds.memory.add(e.memory.id);
      bIds.memory.add(
        (await admin.forUser(B).remember({ input: { content: `Zoltan Bobrowski bought zebrafish food ${i}` } }))
          .remember.memory.id,
      );
      await admin.forUser(B).consolidateSession({ sessionId: 'bob-only' });
    }
    await admin
      .forUser(A)
      .addTurn({ input: { sessionId: SHARED_SESSION, role: 'USER', text: 'I love quokka photos' } });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    for (const stop of stops) stop();
    await ws.dispose();
    expect(received.flatMap((r) => leaks(r.payload, r.field))).toEqual([]);
    expect(received.map((r) => r.field)).toEqual(expect.arrayContaining(['turnAdded', 'memoryEvents']));
    // Each subscription naming B was refused (FORBIDDEN), the others stayed open.
    expect(errors.length).toBe(ops.filter((op) => op.aimsAtB).length);
    for (const error of errors) expect(error).toMatch(/FORBIDDEN/);
  });
});
