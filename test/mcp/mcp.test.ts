// The MCP server through the official SDK client: `sm mcp` over stdio (spawned, on a database
// file) and /mcp over Streamable HTTP on a running service; every tool, its effect on memory,
// resources and the prompt, bad calls, scoping by token, and a clean exit when stdin closes.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeStore, openStore } from '../../server/storage/sqlite/open.ts';
import { startServer, type TestServer } from '../helpers/api-server.ts';
import { sm } from '../helpers/sm-cli.ts';

const SM = fileURLToPath(new URL('../../bin/sm.js', import.meta.url));
const TOOL_NAMES = [
  'add_turn',
  'confirm_fact',
  'correct_fact',
  'forget',
  'get_context',
  'get_entity_info',
  'get_profile',
  'memory_stats',
  'remember_fact',
  'search_memory',
];

type Called = { isError?: boolean; content: { type: string; text?: string }[]; structuredContent?: any };
const call = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
  (await client.callTool({ name, arguments: args })) as Called;
const textOf = (result: Called) => result.content.map((c) => c.text ?? '').join('\n');

describe('sm mcp over stdio', () => {
  const db = join(mkdtempSync(join(tmpdir(), 'sm-mcp-')), 'memory.db');
  let client: Client;
  beforeAll(async () => {
    client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [SM, '--db', db, '--user', 'alice', 'mcp'],
        env: { ...process.env, SM_LOG_LEVEL: 'error' } as Record<string, string>,
        stderr: 'pipe',
      }),
    );
  });
  afterAll(() => client?.close());

  it('lists the tools with schemas and truthful hints, the resources and the prompt', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(TOOL_NAMES);
    for (const t of tools) {
      expect(t.description!.length).toBeGreaterThan(60);
      expect(t.inputSchema.type).toBe('object');
      expect(t.outputSchema?.type).toBe('object');
    }
    const hints = Object.fromEntries(tools.map((t) => [t.name, t.annotations]));
    expect(hints.search_memory).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(hints.forget).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(hints.add_turn).toMatchObject({ readOnlyHint: false, idempotentHint: false });
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((r) => r.uriTemplate).sort()).toEqual([
      'memory://context/{session}',
      'memory://entities/{name}',
      'memory://memories/{id}',
    ]);
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(['memory://profile']);
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['use-memory']);
    const prompt = await client.getPrompt({ name: 'use-memory' });
    expect(JSON.stringify(prompt.messages)).toContain('search_memory');
  });

  it('every tool does what it says, in the --user space, and the database shows it', async () => {
    const turn = await call(client, 'add_turn', {
      session_id: 'chat-1',
      role: 'user',
      text: 'My sister Maria lives in Porto and I like green tea',
    });
    expect(turn.isError).toBeFalsy();
    expect(turn.structuredContent.turnId).toBeGreaterThan(0);
    expect(turn.structuredContent.extracted.map((e: any) => e.content)).toContain('User likes green tea');

    const saved = await call(client, 'remember_fact', {
      text: 'Alice is allergic to peanuts',
      importance: 1,
      tags: ['health'],
    });
    expect(saved.structuredContent).toMatchObject({
      action: 'created',
      memory: { content: 'Alice is allergic to peanuts', status: 'active' },
    });
    const again = await call(client, 'remember_fact', { text: 'Alice is allergic to peanuts' });
    expect(again.structuredContent.action).toBe('merged');

    const found = await call(client, 'search_memory', { query: 'peanuts allergy', kinds: ['fact'] });
    expect(found.structuredContent.hits[0]).toMatchObject({ kind: 'fact', text: 'Alice is allergic to peanuts' });
    expect(textOf(found)).toContain('Alice is allergic to peanuts');

    const context = await call(client, 'get_context', { query: 'what can Alice not eat', token_budget: 500 });
    expect(context.structuredContent.markdown).toContain('peanuts');

    const id = saved.structuredContent.memory.id;
    expect((await call(client, 'confirm_fact', { id })).structuredContent.memory).toMatchObject({
      id,
      protected: true,
    });
    const corrected = await call(client, 'correct_fact', { query: 'green tea', new_text: 'User likes jasmine tea' });
    expect(corrected.structuredContent).toMatchObject({
      previous: { content: 'User likes green tea', status: 'archived' },
      memory: { content: 'User likes jasmine tea' },
    });

    // Names the fast entity pass finds at once (an address, a handle)...
    await call(client, 'remember_fact', { text: 'Alice writes to @maria_p at maria@example.com' });
    // ...and people through the accurate pass, a background job that `sm mcp` runs while it serves.
    await call(client, 'add_turn', {
      session_id: 'chat-1',
      role: 'user',
      text: 'I had lunch with Jonathan Miller yesterday',
    });
    let person: Called | null = null;
    for (let i = 0; i < 40 && (!person || person.isError); i++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      person = await call(client, 'get_entity_info', { name: 'Jonathan' });
    }
    expect(person!.isError).toBeFalsy();
    expect(person!.structuredContent).toMatchObject({ name: 'Jonathan Miller', type: 'person' });
    const maria = await call(client, 'get_entity_info', { name: 'maria@example.com' });
    expect(maria.isError).toBeFalsy();
    expect(maria.structuredContent).toMatchObject({ name: 'maria@example.com', type: 'email' });
    expect(maria.structuredContent.facts).toEqual(['Alice writes to @maria_p at maria@example.com']);

    const stats = await call(client, 'memory_stats');
    expect(stats.structuredContent).toMatchObject({ turns: 2, sessions: 1 });

    // forget by query previews first; only confirm deletes.
    const preview = await call(client, 'forget', { query: 'jasmine' });
    expect(preview.structuredContent).toMatchObject({ deleted: false });
    expect(preview.structuredContent.preview.join()).toContain('jasmine');
    expect((await call(client, 'search_memory', { query: 'jasmine' })).structuredContent.hits.length).toBeGreaterThan(
      0,
    );
    const gone = await call(client, 'forget', { query: 'jasmine', confirm: true });
    expect(gone.structuredContent.deleted).toBe(true);
    expect((await call(client, 'search_memory', { query: 'jasmine' })).structuredContent.hits).toEqual([]);

    // The resources read the same memory.
    const memory = await client.readResource({ uri: `memory://memories/${id}` });
    expect(JSON.parse((memory.contents[0] as { text: string }).text)).toMatchObject({ memoryId: id, status: 'ACTIVE' });
    const entity = await client.readResource({ uri: `memory://entities/${encodeURIComponent('@maria_p')}` });
    expect((entity.contents[0] as { text: string }).text).toMatch(/maria_p/);
    const block = await client.readResource({ uri: 'memory://context/chat-1' });
    expect((block.contents[0] as { text: string }).text.length).toBeGreaterThan(0);

    // All of it in alice's space, none in default.
    const users = await sm(['--db', db, 'users', '--json']);
    expect(users.json.users.map((u: any) => u.id)).toEqual(['alice']);
  });

  it('get_profile and memory://profile show the standing instructions, preferences and profile; get_context opens with them', async () => {
    await call(client, 'add_turn', {
      session_id: 'chat-2',
      role: 'user',
      text: 'Always include version numbers when I ask about libraries.',
    });
    await call(client, 'add_turn', {
      session_id: 'chat-2',
      role: 'user',
      text: "I'm vegetarian, and I prefer short answers.",
    });
    // What the assistant says is not the user's instruction.
    await call(client, 'add_turn', {
      session_id: 'chat-2',
      role: 'assistant',
      text: 'Always back up your database before a migration.',
    });
    const profile = await call(client, 'get_profile');
    expect(profile.isError).toBeFalsy();
    expect(profile.structuredContent.instructions.map((m: any) => m.content)).toEqual([
      'Always include version numbers when I ask about libraries.',
    ]);
    expect(profile.structuredContent.preferences.map((m: any) => m.content)).toContain('User prefers short answers');
    expect(profile.structuredContent.profile.map((m: any) => m.content)).toContain('User is vegetarian');
    expect(textOf(profile)).toMatch(
      /^## Standing instructions\n- Always include version numbers when I ask about libraries\. \(memory \d+\)/,
    );
    const resource = await client.readResource({ uri: 'memory://profile' });
    expect((resource.contents[0] as { text: string }).text).toBe(textOf(profile));
    const context = await call(client, 'get_context', {
      query: 'Which libraries does the project use?',
      token_budget: 500,
    });
    expect(context.structuredContent.markdown).toMatch(
      /^## Standing instructions\n- Always include version numbers when I ask about libraries\. /,
    );
    expect((await call(client, 'get_profile', { limit: 0 })).isError).toBe(true);
  });

  it('bad calls: an unknown tool or arguments off the schema are errors that write nothing; an unknown id is a result the model reads', async () => {
    const before = (await call(client, 'memory_stats')).structuredContent;
    const unknown = await client.callTool({ name: 'drop_database', arguments: {} }).then(
      (r) => r as Called,
      (e: Error) => ({ isError: true, content: [{ type: 'text', text: e.message }] }),
    );
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toMatch(/drop_database/);
    for (const [name, args] of [
      ['remember_fact', { text: '' }],
      ['remember_fact', { text: 'x', importance: 7 }],
      ['add_turn', { session_id: 's', role: 'robot', text: 'hi' }],
      ['search_memory', { query: 42 }],
    ] as const) {
      const result = await client.callTool({ name, arguments: args }).then(
        (r) => r as Called,
        (e: Error) => ({ isError: true, content: [{ type: 'text', text: e.message }] }),
      );
      expect(result.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
    }
    expect((await call(client, 'memory_stats')).structuredContent).toEqual(before);
    const missing = await call(client, 'confirm_fact', { id: 999_999 });
    expect(missing).toMatchObject({ isError: true });
    expect(textOf(missing)).toBe('memory 999999 not found');
    const nothing = await call(client, 'correct_fact', { query: 'xylophone quartet', new_text: 'x' });
    expect(textOf(nothing)).toMatch(/No fact matches/);
  });
});

describe('the MCP configurations of docs/mcp.md, as written', () => {
  const section = readFileSync(fileURLToPath(new URL('../../docs/mcp.md', import.meta.url)), 'utf8');
  const configs = [...section.matchAll(/```json\n([\s\S]*?)```/g)].map(
    (m) => JSON.parse(m[1]!).mcpServers['symbiosis-memory'],
  );

  it('the stdio configuration starts a server that lists the tools', async () => {
    const stdio = configs.find((c) => c.command)!;
    const db = join(mkdtempSync(join(tmpdir(), 'sm-mcp-')), 'memory.db');
    const args = stdio.args.map((a: string) =>
      a.replace('/path/to/symbiosis-memory/bin/sm.js', SM).replace('/path/to/memory.db', db),
    );
    expect(stdio.command).toBe('node');
    const client = new Client({ name: 'desktop-like', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args,
        env: { ...process.env, SM_LOG_LEVEL: 'error' } as Record<string, string>,
        cwd: tmpdir(),
        stderr: 'pipe',
      }),
    );
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(TOOL_NAMES);
    expect((await call(client, 'remember_fact', { text: 'The README config works' })).structuredContent.action).toBe(
      'created',
    );
    await client.close();
    expect((await sm(['--db', db, 'users', '--json'])).json.users.map((u: any) => u.id)).toEqual(['me']);
  });

  it('the HTTP configuration (URL and Authorization header) reaches the service', async () => {
    const http = configs.find((c) => c.url)!;
    const server = await startServer({ token: 'readme-admin-token-5e6f7a8b' });
    try {
      const { token } = (await server.client().createAccessToken({ userId: 'me' })).createAccessToken;
      const url = new URL(http.url.replace('http://127.0.0.1:8787', server.base));
      const headers = { Authorization: http.headers.Authorization.replace('smt_…', token) };
      const client = new Client({ name: 'cursor-like', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
      expect((await call(client, 'memory_stats')).structuredContent).toMatchObject({ memories: 0 });
      await client.close();
    } finally {
      await server.close();
    }
  });
});

describe('function calling', () => {
  it("sm tools prints the same tools for OpenAI and Anthropic, and client.executeTool runs a model's call", async () => {
    const openai = await sm(['tools', '--format', 'openai']);
    expect(openai.code).toBe(0);
    expect(openai.json.map((t: any) => t.function.name).sort()).toEqual(TOOL_NAMES);
    expect(openai.json[0]).toMatchObject({
      type: 'function',
      function: { parameters: { type: 'object', additionalProperties: false } },
    });
    const anthropic = await sm(['tools', '--format', 'anthropic']);
    expect(anthropic.json.map((t: any) => t.name).sort()).toEqual(TOOL_NAMES);
    expect(anthropic.json.find((t: any) => t.name === 'remember_fact').input_schema.required).toEqual(['text']);
    expect((await sm(['tools', '--format', 'gemini'])).code).toBe(2);

    const server = await startServer();
    try {
      const client = server.client().forUser('dora');
      // As a model sends it: a name and JSON arguments.
      const saved = await client.executeTool(
        'remember_fact',
        JSON.parse('{"text":"Dora speaks Basque","importance":0.8}'),
      );
      expect(saved).toMatchObject({
        isError: false,
        structured: { action: 'created', memory: { content: 'Dora speaks Basque' } },
      });
      expect((await client.executeTool('search_memory', { query: 'Basque' })).text).toContain('Dora speaks Basque');
      expect(await client.executeTool('launch_rockets', {})).toMatchObject({
        isError: true,
        text: expect.stringContaining('Unknown tool'),
      });
      expect(await client.executeTool('remember_fact', { text: 'x', surprise: 1 })).toMatchObject({ isError: true });
      expect(await client.executeTool('confirm_fact', { id: 424242 })).toMatchObject({
        isError: true,
        text: 'memory 424242 not found',
      });
      expect((await server.client().forUser('dora').memories({})).memories.totalCount).toBe(1);
    } finally {
      await server.close();
    }
  });
});

describe('sm mcp lifecycle', () => {
  it("sm mcp --url serves the tools of a running service, in the token's space", async () => {
    const server = await startServer({ token: 'mcp-remote-admin-token-77aa' });
    try {
      await server
        .client()
        .forUser('eve')
        .remember({ input: { content: 'Eve rides a tandem bicycle' } });
      const { token } = (await server.client().createAccessToken({ userId: 'eve', readOnly: true })).createAccessToken;
      const client = new Client({ name: 'test', version: '1.0.0' });
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [SM, '--url', server.url, '--token', token, 'mcp'],
          env: { ...process.env, SM_LOG_LEVEL: 'error' } as Record<string, string>,
          stderr: 'pipe',
        }),
      );
      expect(
        (await call(client, 'search_memory', { query: 'tandem' })).structuredContent.hits.map((h: any) => h.text),
      ).toEqual(['Eve rides a tandem bicycle']);
      const refused = await call(client, 'remember_fact', { text: 'Eve likes hills' });
      expect(refused).toMatchObject({ isError: true });
      expect(textOf(refused)).toMatch(/read-only/);
      await client.close();
    } finally {
      await server.close();
    }
  });

  it('exits cleanly when stdin closes', async () => {
    const db = join(mkdtempSync(join(tmpdir(), 'sm-mcp-')), 'memory.db');
    const child = spawn(process.execPath, [SM, '--db', db, 'mcp'], {
      env: { ...process.env, SM_LOG_LEVEL: 'error' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } })}\n`,
    );
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const started = Date.now();
    child.stdin.end();
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(0);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(stdout).toContain('"serverInfo"');
    // The database was closed properly (the job worker stopped with it): it opens cleanly.
    await closeStore(await openStore({ path: db, env: {} }));
  });
});

describe('/mcp on the service', () => {
  const ADMIN = 'mcp-admin-token-0c9d1e2f3a';
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ token: ADMIN });
    await server
      .client()
      .forUser('alice')
      .remember({ input: { content: 'Alice collects vinyl records' } });
  });
  afterAll(() => server.close());

  const connect = async (token: string | null, query = '') => {
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.base}/mcp${query}`), {
        requestInit: { headers: token ? { authorization: `Bearer ${token}` } : {} },
      }),
    );
    return client;
  };

  it('a scoped token selects its user: tools write and read that user only', async () => {
    const { token } = (await server.client().createAccessToken({ userId: 'bob' })).createAccessToken;
    const bob = await connect(token);
    expect((await bob.listTools()).tools.map((t) => t.name).sort()).toEqual(TOOL_NAMES);
    const saved = await call(bob, 'remember_fact', { text: 'Bob collects vinyl records too' });
    expect(saved.structuredContent.action).toBe('created');
    const hits = (await call(bob, 'search_memory', { query: 'vinyl records' })).structuredContent.hits;
    expect(hits.map((h: any) => h.text)).toEqual(['Bob collects vinyl records too']);
    const other = await bob.readResource({ uri: 'memory://memories/1' }).then(
      () => 'read',
      (e: Error) => e.message,
    );
    expect(other).toMatch(/not found/);
    await bob.close();
    // The admin reaches a user by ?user_id=.
    const admin = await connect(ADMIN, '?user_id=alice');
    expect(
      (await call(admin, 'search_memory', { query: 'vinyl records' })).structuredContent.hits.map((h: any) => h.text),
    ).toEqual(['Alice collects vinyl records']);
    await admin.close();
  });

  it('every request lists the same tools with their full schemas (the first answer is kept for the process)', async () => {
    const lists = [];
    for (const query of ['?user_id=alice', '?user_id=alice', '?user_id=dave']) {
      const client = await connect(ADMIN, query);
      lists.push((await client.listTools()).tools);
      await client.close();
    }
    expect(lists[1]).toEqual(lists[0]);
    expect(lists[2]).toEqual(lists[0]);
    expect(lists[0]!.map((t) => t.name).sort()).toEqual(TOOL_NAMES);
    const search = lists[0]!.find((t) => t.name === 'search_memory')!;
    expect(Object.keys(search.inputSchema.properties ?? {})).toContain('query');
    expect(search.outputSchema?.type).toBe('object');
  });

  it('without a token, or naming another user with a user token, the endpoint refuses', async () => {
    const none = await connect(null).then(
      () => 'connected',
      (e: Error) => e.message,
    );
    expect(none).toMatch(/401|token/i);
    const { token } = (await server.client().createAccessToken({ userId: 'carol' })).createAccessToken;
    const crossing = await connect(token, '?user_id=alice').then(
      () => 'connected',
      (e: Error) => e.message,
    );
    expect(crossing).toMatch(/403|only reach its own user/);
  });
});
