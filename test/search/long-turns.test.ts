// Long turns and odd input through the public doors: a turn of 1,000,000 characters is stored
// whole over GraphQL, MCP and the CLI, one character more is BAD_USER_INPUT with nothing stored;
// a turn that is all code, an empty or a 5,000-word question, a turn dated ahead of the clock.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Role, SearchKind, type SymbiosisClient } from '../../client/src/index.ts';
import { MAX_TURN_TEXT } from '../../server/core/turns/turns.ts';
import { failure, startServer, type TestServer } from '../helpers/api-server.ts';
import { sm } from '../helpers/sm-cli.ts';

let server: TestServer;
let client: SymbiosisClient;

/** Prose of `chars` characters, every sentence different, with `needle` in its middle. */
function longText(chars: number, needle: string): string {
  const parts: string[] = [];
  let length = 0;
  for (let i = 0; length < chars; i++) {
    const sentence = `Paragraph ${i} goes over routine details of the build number ${i}. `;
    parts.push(sentence);
    length += sentence.length;
    if (i === 2000) parts.push(`${needle} `), (length += needle.length + 1);
  }
  return parts.join('').slice(0, chars);
}

const turnCount = async () => (await client.stats()).stats.turns;

beforeAll(async () => {
  server = await startServer({ config: { extractor: { mode: 'heuristic' } } });
  client = server.client();
});
afterAll(() => server.close());

describe('long turns', () => {
  it(`stores a turn of ${MAX_TURN_TEXT.toLocaleString('en')} characters whole over GraphQL, and refuses one more with nothing stored`, {
    timeout: 60_000,
  }, async () => {
    const text = longText(MAX_TURN_TEXT, 'The staging database password rotates every ninety days.');
    const { addTurn } = await client.addTurn({ input: { sessionId: 'paste', role: Role.User, text } });
    expect(addTurn.turn.text.length).toBe(MAX_TURN_TEXT);
    expect(addTurn.turn.text).toBe(text);
    const before = await turnCount();
    const error = await failure(client.addTurn({ input: { sessionId: 'paste', role: Role.User, text: `${text}x` } }));
    expect(error.code).toBe('BAD_USER_INPUT');
    expect(error.message).toMatch(/text.*1,000,000 characters/);
    expect(await turnCount()).toBe(before);
    // A word from the middle of it finds it.
    const { search } = await client.search({ query: 'staging database password rotation', kinds: [SearchKind.Turn] });
    expect(search[0]?.id).toBe(addTurn.turn.id);
    // The hit carries the passage that matched, not the turn's first characters.
    expect(search[0]?.passage).toContain('The staging database password rotates every ninety days.');
    expect(search[0]!.passage!.length).toBeLessThan(500);
  });

  it('stores a turn that is all code and finds it by an identifier in it', async () => {
    const code =
      '```ts\nexport async function rotateSigningKeys(vault: Vault) {\n  const next = await vault.generate({ algorithm: "ed25519" });\n  return vault.promote(next);\n}\n```';
    const { addTurn } = await client.addTurn({ input: { sessionId: 'code', role: Role.Assistant, text: code } });
    expect(addTurn.turn.text).toBe(code);
    const { search } = await client.search({ query: 'rotateSigningKeys ed25519', kinds: [SearchKind.Turn] });
    expect(search[0]?.id).toBe(addTurn.turn.id);
  });

  it('answers an empty question with no hits and context by recency; a 5,000-word question is BAD_USER_INPUT naming the query', async () => {
    expect((await client.search({ query: '' })).search).toEqual([]);
    const { context } = await client.context({ sessionId: 'asking', query: '', tokenBudget: 500 });
    expect(context.tokensUsed).toBeLessThanOrEqual(500);
    const words = Array.from({ length: 5000 }, (_, i) => `word${i}`).join(' ');
    for (const ask of [
      () => client.search({ query: words }),
      () => client.context({ sessionId: 'asking', query: words }),
    ]) {
      const error = await failure(ask());
      expect(error.code).toBe('BAD_USER_INPUT');
      expect(error.message).toMatch(/query/);
    }
  });

  it('stores a turn dated ahead of the server clock with its date (imported history), and finds it', async () => {
    const future = new Date(Date.now() + 30 * 86_400_000).toISOString();
    const { addTurn } = await client.addTurn({
      input: { sessionId: 'later', role: Role.User, text: 'We shipped the Kestrel release to production.', at: future },
    });
    expect(addTurn.turn.at).toBe(future);
    const { search } = await client.search({ query: 'Kestrel release', kinds: [SearchKind.Turn] });
    expect(search[0]).toMatchObject({ id: addTurn.turn.id, at: future });
  });

  it('takes a long turn over MCP (add_turn) and refuses one over the limit as a tool error', {
    timeout: 60_000,
  }, async () => {
    const mcp = new Client({ name: 'long-turns', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${server.base}/mcp`)));
    try {
      const text = longText(400_000, 'Our on-call rotation switches on Tuesdays.');
      const stored = (await mcp.callTool({
        name: 'add_turn',
        arguments: { session_id: 'mcp', role: 'assistant', text },
      })) as unknown as { structuredContent: { turnId: number } };
      const { search } = await client.search({ query: 'on-call rotation Tuesdays', kinds: [SearchKind.Turn] });
      expect(search[0]).toMatchObject({ id: stored.structuredContent.turnId });
      expect(search[0]!.turn?.text.length).toBe(400_000);
      const before = await turnCount();
      const refused = (await mcp.callTool({
        name: 'add_turn',
        arguments: { session_id: 'mcp', role: 'user', text: 'x'.repeat(MAX_TURN_TEXT + 1) },
      })) as { isError?: boolean };
      expect(refused.isError).toBe(true);
      expect(await turnCount()).toBe(before);
    } finally {
      await mcp.close();
    }
  });
});

describe('sm add-turn --text -', () => {
  it('reads a turn longer than a command-line argument can be from stdin', { timeout: 60_000 }, async () => {
    const db = join(mkdtempSync(join(tmpdir(), 'sm-long-')), 'memory.db');
    const text = longText(300_000, 'The release train leaves every second Thursday.');
    const bin = fileURLToPath(new URL('../../bin/sm.js', import.meta.url));
    const child = spawn(
      process.execPath,
      [bin, '--db', db, 'add-turn', '--session', 's', '--role', 'assistant', '--text', '-', '--json'],
      { env: { ...process.env, SM_LOG_LEVEL: 'warn' } },
    );
    let stdout = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stdin.end(text);
    expect(await new Promise((resolve) => child.on('close', resolve))).toBe(0);
    const id = JSON.parse(stdout).turn.id;
    const found = await sm(['--db', db, 'search', 'release train Thursday', '--kinds', 'turn', '--json']);
    expect(found.json[0].id).toBe(id);
    expect(found.json[0].text.length).toBe(300_000);
  });
});
