// Extraction, checked through the real `sm` executable.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAiServer } from '../helpers/openai-server.ts';
import { sm } from '../helpers/sm-cli.ts';

const freshDb = () => join(mkdtempSync(join(tmpdir(), 'sm-extract-')), 'memory.db');
const addTurn = (db: string, text: string, env: Record<string, string> = {}) =>
  sm(['--db', db, 'add-turn', '--session', 's1', '--role', 'user', '--text', text, '--json'], env);

describe('sm add-turn extraction', () => {
  it('extracts, supersedes and merges with no LLM configured', async () => {
    const db = freshDb();
    const first = await addTurn(db, 'I like JRPGs and my name is Alex');
    expect(first.code).toBe(0);
    expect(first.json.extracted.map((e: any) => [e.action, e.memory.content])).toEqual([
      ['CREATED', 'User likes JRPGs'],
      ['CREATED', "User's name is Alex"],
    ]);
    const alexId = first.json.extracted[1].memory.id;
    const sam = await addTurn(db, 'Actually, call me Sam');
    expect(sam.json.extracted.map((e: any) => [e.action, e.memory.id, e.memory.status])).toEqual([
      ['CREATED', sam.json.extracted[0].memory.id, 'ACTIVE'],
      ['SUPERSEDED', alexId, 'ARCHIVED'],
    ]);
    const why = await sm(['--db', db, 'explain', '--id', String(alexId), '--json']);
    expect(why.json.supersededBy.map((m: any) => m.id)).toEqual([sam.json.extracted[0].memory.id]);
    const samWhy = await sm(['--db', db, 'explain', '--id', String(sam.json.extracted[0].memory.id), '--json']);
    expect(samWhy.json.sources).toMatchObject([
      { turn: { id: sam.json.turn.id }, reason: 'CONFLICT', rule: 'heuristic:identity.name' },
    ]);

    const noLonger = await addTurn(db, 'I no longer like JRPGs');
    expect(noLonger.json.extracted.map((e: any) => [e.action, e.memory.content])).toEqual([
      ['CREATED', 'User no longer likes JRPGs'],
      ['SUPERSEDED', 'User likes JRPGs'],
    ]);
    const again = await addTurn(db, 'I really like JRPGs');
    const twice = await addTurn(db, 'I really like JRPGs');
    expect(twice.json.extracted).toMatchObject([
      { action: 'MERGED', memory: { id: again.json.extracted[0].memory.id, hits: 1 } },
    ]);
  });

  it('reads people right: a dated move, health and diet, a named sister', async () => {
    const db = freshDb();
    const at = (iso: string) => ({ SM_NOW: iso, SM_CONFIG__EXTRACTOR__TIMEZONE: 'UTC' });
    const said = async (text: string, iso: string) =>
      (await addTurn(db, text, at(iso))).json.extracted.map((e: any) => [e.action, e.memory.content, e.memory.status]);

    const berlin = (await addTurn(db, 'I live in Berlin', at('2026-03-02T09:00:00Z'))).json.extracted[0].memory;
    const lisbon = await addTurn(db, 'I moved to Lisbon last month', at('2026-03-12T09:00:00Z'));
    expect(lisbon.json.extracted.map((e: any) => [e.action, e.memory.content, e.memory.status])).toEqual([
      ['CREATED', 'User moved to Lisbon in February 2026', 'ACTIVE'],
      ['SUPERSEDED', 'User lives in Berlin', 'ARCHIVED'],
    ]);
    expect(
      (await sm(['--db', db, 'explain', '--id', String(berlin.id), '--json'])).json.supersededBy.map((m: any) => m.id),
    ).toEqual([lisbon.json.extracted[0].memory.id]);

    for (const [text, content, tags] of [
      ["I'm allergic to peanuts", 'User is allergic to peanuts', ['health', 'diet']],
      ["I'm vegetarian", 'User is vegetarian', ['diet']],
      ["I can't eat gluten", "User can't eat gluten", ['health', 'diet']],
    ] as const) {
      const result = await addTurn(db, text, at('2026-03-12T10:00:00Z'));
      expect(
        result.json.extracted.map((e: any) => [
          e.action,
          e.memory.content,
          e.memory.tags,
          e.memory.protected,
          e.memory.importance,
        ]),
      ).toEqual([['CREATED', content, tags, true, 1]]);
    }
    expect(await said('My sister Maria lives in Porto', '2026-03-12T11:00:00Z')).toEqual([
      ['CREATED', "User's sister Maria lives in Porto", 'ACTIVE'],
    ]);
    const maria = await sm(['--db', db, 'entity', 'Maria', '--json']);
    expect(maria.code).toBe(0);
    expect(maria.json).toMatchObject({ name: 'Maria', type: 'person', summary: "User's sister" });
    expect(maria.json.memories.edges.map((e: any) => e.node.content)).toEqual(["User's sister Maria lives in Porto"]);
    expect((await sm(['--db', db, 'entity', 'Maria'])).stdout).toContain("User's sister");

    // Four months on, decay archives what nobody used (the sister's home), but not the protected health
    // and diet facts, nor where the user lives: the user's profile is standing memory.
    expect((await sm(['--db', db, 'maintenance', 'decay'], at('2026-07-12T10:00:00Z'))).code).toBe(0);
    const active = (await sm(['--db', db, 'list', '--json'], at('2026-07-12T10:00:00Z'))).json.memories
      .map((m: any) => m.content)
      .sort();
    expect(active).toEqual([
      "User can't eat gluten",
      'User is allergic to peanuts',
      'User is vegetarian',
      'User moved to Lisbon in February 2026',
    ]);
  });

  describe('against an OpenAI-compatible server', () => {
    let llm: Awaited<ReturnType<typeof startOpenAiServer>>;
    beforeAll(async () => (llm = await startOpenAiServer()));
    afterAll(() => llm.close());
    const llmEnv = (mode: string) => ({
      SM_CONFIG__EXTRACTOR__MODE: mode,
      SM_CONFIG__LLM__ENDPOINT: llm.url,
      SM_CONFIG__LLM__MODEL: 'test-model',
      SM_CONFIG__LLM__TIMEOUT_S: '1',
    });

    it('llm mode follows the server JSON, and falls back to heuristics when it fails', async () => {
      const db = freshDb();
      llm.script({ reply: '[{"action":"create","content":"User is a fan of Final Fantasy","importance":1}]' });
      const ok = await addTurn(db, 'Final Fantasy is the best', llmEnv('llm'));
      expect(ok.json.extracted.map((e: any) => [e.action, e.memory.content, e.memory.importance])).toEqual([
        ['CREATED', 'User is a fan of Final Fantasy', 1],
      ]);
      llm.script({ status: 500 });
      const failed = await addTurn(db, 'I like JRPGs', llmEnv('llm'));
      expect(failed.code).toBe(0);
      expect(failed.json.extracted.map((e: any) => e.memory.content)).toEqual(['User likes JRPGs']);
      llm.script({ reply: 'not json at all' });
      const garbage = await addTurn(db, 'I live in Porto', llmEnv('llm'));
      expect(garbage.json.extracted.map((e: any) => e.memory.content)).toEqual(['User lives in Porto']);
    });
  });
});
