// Hostile input, generated from a seed: thousands of GraphQL requests (fields from the schema by
// introspection, with arguments of wrong types, huge, deep, empty or garbled), odd headers and
// methods, raw WebSocket frames, and CLI argv. Nothing may answer 5xx, every GraphQL error carries
// a documented code, the server stays up, rejected requests change nothing in the database, and
// the CLI never prints a stack trace. SEED=n reproduces a run.
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  buildClientSchema,
  getIntrospectionQuery,
  getNamedType,
  isEnumType,
  isObjectType,
  isScalarType,
  type GraphQLSchema,
  type IntrospectionQuery,
} from 'graphql';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../server/graphql/errors.ts';
import { startServer, type TestServer } from '../helpers/api-server.ts';
import { sm } from '../helpers/sm-cli.ts';

const SEED = Number(process.env.SEED ?? 20261124);

function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const NASTY = [
  '',
  ' ',
  '\u0000',
  'ü𝕏\u202e',
  "'; drop table memories; --",
  '" OR 1=1',
  '(((',
  'NEAR(',
  '*',
  '%_\\',
  '{"a":',
  'x'.repeat(30_000),
  '\n\r\t',
  '__proto__',
  'constructor',
  '-1',
  '1e309',
  'NaN',
  'null',
  'true',
  '[]',
  '{}',
  '@@@',
  'a.b:c@d',
  'memory://x',
  '🙂'.repeat(500),
];

describe('hostile input', () => {
  let server: TestServer;
  let schema: GraphQLSchema;
  const random = rng(SEED);
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;

  /** The database's content: rejected requests must leave it as it was. */
  const fingerprint = () =>
    createHash('sha256')
      .update(
        JSON.stringify(
          ['turns', 'memories', 'sessions', 'entities', 'users', 'memory_events', 'access_tokens', 'meta'].map((t) =>
            server.store.sqlite.prepare(`select * from ${t} order by rowid`).all(),
          ),
        ),
      )
      .digest('hex');

  beforeAll(async () => {
    server = await startServer();
    const client = server.client();
    await client.addTurn({
      input: { sessionId: 's1', role: 'USER', name: 'Alice', text: 'My name is Alice and I live in Berlin' },
    });
    await client.remember({ input: { content: 'Alice likes tea', tags: ['drinks'] } });
    const introspection = await server.graphql(getIntrospectionQuery());
    schema = buildClientSchema(introspection.body.data as IntrospectionQuery);
  });
  afterAll(() => server.close());

  /** A value that may or may not fit: right type, wrong type, nasty, huge, nested. */
  function value(depth = 0): string {
    const kinds = [
      () => String(Math.floor(random() * 2 ** 31) * (random() < 0.2 ? -1 : 1)),
      () => JSON.stringify(pick(NASTY)),
      () => pick(['true', 'false', 'null', '1.5', '-0', '99999999999999999999']),
      () =>
        depth < 3 ? `[${Array.from({ length: Math.floor(random() * 3) }, () => value(depth + 1)).join(', ')}]` : '[]',
      () => (depth < 3 ? `{ ${pick(['content', 'text', 'sessionId', 'role', 'x'])}: ${value(depth + 1)} }` : '{}'),
      () => pick(['USER', 'ASSISTANT', 'ACTIVE', 'FACT', 'NOPE']),
      () => `${'['.repeat(400)}1${']'.repeat(400)}`,
    ];
    return pick(kinds)();
  }

  /** A document over a real root field with generated arguments and a selection (or garbage). */
  function document(): { query: string; variables?: unknown } {
    const roll = random();
    if (roll < 0.05) return { query: pick(NASTY) };
    if (roll < 0.1) return { query: `{ ${'a: __typename '.repeat(Math.floor(random() * 40))}}` };
    const kind = pick(['query', 'mutation'] as const);
    const root = kind === 'query' ? schema.getQueryType()! : schema.getMutationType()!;
    const field = pick(Object.values(root.getFields()));
    const args = field.args.filter(() => random() < 0.7).map((a) => `${a.name}: ${value()}`);
    const type = getNamedType(field.type);
    const scalars = isObjectType(type)
      ? Object.values(type.getFields())
          .filter((f) => isScalarType(getNamedType(f.type)) || isEnumType(getNamedType(f.type)))
          .filter((f) => !f.args.length)
          .map((f) => f.name)
      : [];
    const selection = isObjectType(type) ? ` { __typename ${scalars.slice(0, 5).join(' ')} }` : '';
    const variables = random() < 0.2 ? pick([{ x: 1 }, [], 'str', null, { input: { text: '' } }]) : undefined;
    return { query: `${kind} { ${field.name}${args.length ? `(${args.join(', ')})` : ''}${selection} }`, variables };
  }

  it('thousands of generated GraphQL requests: no 5xx, every error coded, rejected ones change nothing', {
    timeout: 60_000,
  }, async () => {
    const codes = new Set(Object.keys(ERROR_CODES));
    const problems: string[] = [];
    let rejected = 0;
    for (let i = 0; i < 2500; i++) {
      const { query, variables } = document();
      const method = random() < 0.15 ? 'GET' : 'POST';
      const contentType = pick([
        'application/json',
        'application/json',
        'application/graphql-response+json',
        'text/plain',
        'application/x-www-form-urlencoded',
      ]);
      const before = fingerprint();
      let response: Response;
      if (method === 'GET') {
        const params = new URLSearchParams({ query });
        if (variables !== undefined) params.set('variables', random() < 0.5 ? JSON.stringify(variables) : '{broken');
        response = await fetch(`${server.base}/graphql?${params}`, { headers: { accept: 'application/json' } });
      } else {
        const body =
          random() < 0.05
            ? pick(['{', 'null', '[]', '"x"', '{"query": 5}', '{"query":"{ stats { turns } }","variables":"x"}'])
            : JSON.stringify({ query, variables });
        response = await fetch(`${server.base}/graphql`, {
          method: 'POST',
          headers: { 'content-type': contentType },
          body,
        });
      }
      const text = await response.text();
      if (response.status >= 500)
        problems.push(`${response.status} for ${method} ${query.slice(0, 120)}: ${text.slice(0, 200)}`);
      let parsed: { data?: Record<string, unknown> | null; errors?: { extensions?: { code?: string } }[] } | null =
        null;
      try {
        parsed = JSON.parse(text);
      } catch {
        // A non-JSON answer is fine for a non-GraphQL request (an unsupported media type, say), if it is not a 5xx.
      }
      for (const error of parsed?.errors ?? []) {
        const code = error.extensions?.code;
        if (!code || !codes.has(code))
          problems.push(`uncoded error (${code}) for ${query.slice(0, 120)}: ${JSON.stringify(error).slice(0, 200)}`);
      }
      const failed = !parsed?.data || Object.values(parsed.data).every((v) => v === null);
      if (failed && parsed?.errors?.length) {
        rejected++;
        if (fingerprint() !== before) problems.push(`a rejected request changed the database: ${query.slice(0, 160)}`);
      }
    }
    expect(problems.slice(0, 20)).toEqual([]);
    expect(rejected).toBeGreaterThan(500);
    // Still up and answering.
    expect((await server.graphql('{ stats { turns } }')).body.data.stats.turns).toBe(1);
    const rss = process.memoryUsage().rss;
    expect(rss).toBeLessThan(1.5e9);
  });

  it('raw WebSocket frames of every shape: the server stays up and answers a well-formed client', {
    timeout: 30_000,
  }, async () => {
    const frames = [
      'not json',
      '{}',
      '[]',
      'null',
      JSON.stringify({ type: 'subscribe', id: '1', payload: { query: '{ stats { turns } }' } }), // before connection_init
      JSON.stringify({ type: 'connection_init', payload: 'x' }),
      JSON.stringify({ type: 'connection_init' }),
      JSON.stringify({ type: 'subscribe', id: 5, payload: {} }),
      JSON.stringify({ type: 'subscribe', id: 'x', payload: { query: `{ ${'['.repeat(5000)} }` } }),
      JSON.stringify({ type: 'complete', id: 'nope' }),
      JSON.stringify({ type: 'ping', payload: 'x'.repeat(1000) }),
      Buffer.from([0xff, 0xfe, 0x00]),
    ];
    for (let i = 0; i < 60; i++) {
      const socket = new WebSocket(
        server.url.replace(/^http/, 'ws'),
        pick(['graphql-transport-ws', 'graphql-ws', 'nonsense']),
      );
      await new Promise<void>((resolve) => {
        socket.once('error', () => resolve());
        socket.once('close', () => resolve());
        socket.once('open', () => {
          if (random() < 0.7) socket.send(JSON.stringify({ type: 'connection_init', payload: {} }));
          for (let n = 0; n < 3; n++) socket.send(pick(frames));
          setTimeout(() => (socket.close(), resolve()), 20);
        });
      });
    }
    expect((await server.graphql('{ stats { turns } }')).body.data.stats.turns).toBe(1);
  });

  it('generated CLI argv and environment: exit 0, 1 or 2, one line on stderr, never a stack trace', {
    timeout: 60_000,
  }, async () => {
    // Commands run in the database's folder: a generated --out path lands there, not in the checkout.
    const dir = mkdtempSync(join(tmpdir(), 'sm-hostile-'));
    const db = join(dir, 'cli.db');
    const commands = [
      'add-turn',
      'remember',
      'list',
      'search',
      'forget',
      'explain',
      'show',
      'confirm',
      'correct',
      'get-context',
      'entity',
      'config',
      'export',
      'import',
      'token',
      'users',
      'forget-user',
      'tools',
      'nope',
    ];
    const flags = [
      '--id',
      '--text',
      '--session',
      '--role',
      '--importance',
      '--tags',
      '--limit',
      '--kinds',
      '--format',
      '--max-tokens',
      '--k',
      '--out',
      '--user',
      '--agent',
      '--json',
      '--yes',
      '--bogus',
    ];
    const runs = [];
    for (let i = 0; i < 40; i++) {
      const argv = ['--db', db, pick(commands)];
      // A NUL byte cannot reach a process through argv or the environment: the OS refuses it.
      const text = (limit: number) => pick(NASTY).replace(/\0/g, '').slice(0, limit);
      for (let n = Math.floor(random() * 4); n > 0; n--) argv.push(pick(flags), ...(random() < 0.8 ? [text(300)] : []));
      const env = random() < 0.2 ? { SM_NOW: text(50), SM_USER: text(50) } : {};
      runs.push(sm(argv, env, dir).then((r) => ({ argv, env, ...r })));
    }
    for (const r of await Promise.all(runs)) {
      const what = `${r.argv.slice(2).join(' ').slice(0, 200)} ${JSON.stringify(r.env)}`;
      expect([0, 1, 2], what).toContain(r.code);
      expect(r.stderr, what).not.toMatch(/\n\s+at .+\(.+:\d+:\d+\)/);
    }
  });
});
