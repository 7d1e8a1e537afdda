// The extraction issue's acceptance checks through the real `sm` executable.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAiServer } from './helpers/openai-server.ts';
import { sm } from './helpers/sm-cli.ts';

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
    expect(samWhy.json.sources).toMatchObject([{ turn: { id: sam.json.turn.id }, reason: 'CONFLICT', rule: 'heuristic:identity.name' }]);

    const noLonger = await addTurn(db, 'I no longer like JRPGs');
    expect(noLonger.json.extracted.map((e: any) => [e.action, e.memory.content])).toEqual([
      ['CREATED', 'User no longer likes JRPGs'],
      ['SUPERSEDED', 'User likes JRPGs'],
    ]);
    const again = await addTurn(db, 'I really like JRPGs');
    const twice = await addTurn(db, 'I really like JRPGs');
    expect(twice.json.extracted).toMatchObject([{ action: 'MERGED', memory: { id: again.json.extracted[0].memory.id, hits: 1 } }]);
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
      expect(ok.json.extracted.map((e: any) => [e.action, e.memory.content, e.memory.importance])).toEqual([['CREATED', 'User is a fan of Final Fantasy', 1]]);
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
