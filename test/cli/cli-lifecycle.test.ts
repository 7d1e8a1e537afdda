// The memory lifecycle through the real `sm` executable: consolidation on a new session,
// decay, confirm, and durable jobs surviving a killed process or ending dead-lettered.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAiServer } from '../helpers/openai-server.ts';
import { sm } from '../helpers/sm-cli.ts';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 4, 1, 9);
const at = (days: number) => ({ SM_NOW: new Date(T0 + days * DAY).toISOString() });
const freshDb = () => join(mkdtempSync(join(tmpdir(), 'sm-life-')), 'memory.db');
const jobRows = (db: string) => {
  if (!existsSync(db)) return [];
  const sqlite = new Database(db, { readonly: true });
  try {
    return sqlite.prepare("select type, status, attempts, last_error from jobs where type = 'extract.llm'").all() as {
      type: string;
      status: string;
      attempts: number;
      last_error: string | null;
    }[];
  } catch {
    return []; // still being created by the other process
  } finally {
    sqlite.close();
  }
};

describe('sm lifecycle', () => {
  it('consolidates s1 when s2 starts, once', async () => {
    const db = freshDb();
    const say = (session: string, text: string, day: number, ...extra: string[]) =>
      sm(['--db', db, 'add-turn', '--session', session, '--role', 'user', '--text', text, '--json', ...extra], at(day));
    await say('s1', 'I like hiking', 0);
    await say('s1', 'My name is Ana and I live in Porto', 0, '--no-extract');
    expect((await sm(['--db', db, 'session', 's1', '--json'], at(0))).json).toMatchObject({
      turnCount: 2,
      consolidatedAt: null,
    });

    await say('s2', 'Good morning', 1);
    const s1 = await sm(['--db', db, 'session', 's1', '--json'], at(1));
    expect(s1.json.consolidatedAt).toBe(new Date(T0 + DAY).toISOString());
    const facts = await sm(['--db', db, 'list', '--json'], at(1));
    expect(facts.json.memories.map((m: { content: string }) => m.content).sort()).toEqual([
      'User likes hiking',
      'User lives in Porto',
      "User's name is Ana",
    ]);

    const again = await sm(['--db', db, 'consolidate', '--session', 's1', '--json'], at(2));
    expect(again.json).toMatchObject({ status: 'SKIPPED', created: 0 });
    expect((await sm(['--db', db, 'list', '--json'], at(2))).json).toEqual(facts.json);
    const sessions = await sm(['--db', db, 'sessions', '--json'], at(2));
    expect(sessions.json.sessions.map((s: { id: string }) => s.id)).toEqual(['s2', 's1']);
  });

  it('decays a fact nobody uses, not a confirmed one', async () => {
    const db = freshDb();
    const idle = await sm(['--db', db, 'remember', '--text', 'User had a cold', '--json'], at(0));
    const kept = await sm(['--db', db, 'remember', '--text', 'User is allergic to peanuts', '--json'], at(0));
    await sm(['--db', db, 'confirm', '--id', String(kept.json.memory.id), '--json'], at(0));
    const decay = await sm(['--db', db, 'maintenance', 'decay', '--json'], at(31));
    expect(decay.json).toMatchObject({ task: 'DECAY', decay: { archived: 1 } });
    const archived = await sm(['--db', db, 'list', '--status', 'archived', '--json'], at(31));
    expect(archived.json.memories.map((m: { id: number }) => m.id)).toEqual([idle.json.memory.id]);
    expect(
      (await sm(['--db', db, 'explain', '--id', String(kept.json.memory.id), '--json'], at(31))).json,
    ).toMatchObject({ status: 'ACTIVE', protected: true });
  });

  describe('jobs', () => {
    let llm: Awaited<ReturnType<typeof startOpenAiServer>>;
    beforeAll(async () => (llm = await startOpenAiServer()));
    afterAll(() => llm.close());
    const withLlm = (db: string, timeout: number) =>
      writeFileSync(
        join(db, '..', 'config.json'),
        JSON.stringify({
          extractor: { mode: 'hybrid' },
          ner: { enabled: false },
          llm: { endpoint: llm.url, model: 'm', timeout_s: timeout },
        }),
      );

    it('finishes a job whose process was killed mid-run, after a restart', async () => {
      const db = freshDb();
      withLlm(db, 30);
      llm.script({ delayMs: 60_000 });
      // add-turn answers with heuristics, then runs its LLM job before exiting: kill it there.
      const child = spawn(
        process.execPath,
        [
          fileURLToPath(new URL('../../bin/sm.js', import.meta.url)),
          '--db',
          db,
          'add-turn',
          '--session',
          's1',
          '--role',
          'user',
          '--text',
          'I like tea',
        ],
        {
          env: { ...process.env, SM_LOG_LEVEL: 'error' },
          stdio: 'ignore',
        },
      );
      const before = llm.requests.length;
      const deadline = Date.now() + 30_000;
      // Kill it while the job is running and its LLM request is in flight.
      while (!jobRows(db).some((j) => j.status === 'running') || llm.requests.length === before) {
        if (Date.now() > deadline) throw new Error('the job never started');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
      expect(jobRows(db)).toMatchObject([{ status: 'running', attempts: 1 }]);

      llm.script({ reply: '[{"action":"create","content":"User enjoys green tea"}]' });
      const run = await sm(['--db', db, 'jobs', '--run', '--json']);
      expect(run.json).toMatchObject({ done: 1, failed: 0 });
      expect(jobRows(db)).toMatchObject([{ status: 'done', attempts: 2 }]);
      const list = await sm(['--db', db, 'list', '--q', 'green tea', '--json']);
      expect(list.json.memories.map((m: { content: string }) => m.content)).toEqual(['User enjoys green tea']);
    });

    it('dead-letters a job whose endpoint always fails, with its error', async () => {
      const db = freshDb();
      withLlm(db, 5);
      llm.script({ status: 500 });
      await sm(['--db', db, 'add-turn', '--session', 's1', '--role', 'user', '--text', 'I like tea'], at(0));
      for (let day = 1; jobRows(db)[0]!.status !== 'dead'; day++) {
        if (day > 10) throw new Error('never dead-lettered');
        llm.script({ status: 500 });
        await sm(['--db', db, 'jobs', '--run', '--json'], at(day));
      }
      const dead = await sm(['--db', db, 'jobs', '--status', 'dead', '--json']);
      expect(dead.json).toMatchObject([
        { type: 'extract.llm', status: 'DEAD', attempts: 5, lastError: expect.stringContaining('500') },
      ]);
      const list = await sm(['--db', db, 'list', '--json']);
      expect(list.json.memories.map((m: { content: string }) => m.content)).toEqual(['User likes tea']);
    });
  });
});
