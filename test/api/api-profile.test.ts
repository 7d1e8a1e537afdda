// The user's profile through the public interfaces: GraphQL over a listening server (profile,
// pinMemory, unpinMemory, editInstruction, Context.standing) and the real `sm profile`. Bad input
// is an error with a code (the CLI: a message naming the flag, exit 2) and changes nothing.
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContextItemReason, MemoryKind, Role, SearchKind, type SymbiosisClient } from '../../client/src/index.ts';
import { failure, startServer, type TestServer } from '../helpers/api-server.ts';
import { sm } from '../helpers/sm-cli.ts';

const TURNS = [
  'Always include version numbers when I ask about libraries.',
  "I'm building a budget tracker, so I prefer simple, minimal dependencies, what should I use for charts?",
  'My name is Priya and I live in Lisbon.',
  'I went to the market on Saturday and bought apples.',
];

describe('profile over GraphQL', () => {
  let server: TestServer;
  let client: SymbiosisClient;
  const fingerprint = () =>
    createHash('sha256')
      .update(
        JSON.stringify(
          ['memories', 'memory_events', 'memory_relations'].map((t) =>
            server.store.sqlite.prepare(`select * from ${t} order by rowid`).all(),
          ),
        ),
      )
      .digest('hex');

  beforeAll(async () => {
    server = await startServer({ config: { extractor: { mode: 'heuristic' } } });
    client = server.client();
    for (const text of TURNS) await client.addTurn({ input: { sessionId: 'chat', role: Role.User, text } });
  });
  afterAll(() => server.close());

  it('lists instructions, preferences and profile facts, each of its kind and protected', async () => {
    const { profile } = await client.profile();
    expect(profile).toMatchObject({ userId: 'default', agentId: null, total: 4 });
    expect(profile.instructions.map((m) => [m.kind, m.content, m.protected, m.pinned])).toEqual([
      [MemoryKind.Instruction, TURNS[0], true, false],
    ]);
    expect(profile.preferences.map((m) => m.content)).toEqual(['User prefers simple, minimal dependencies']);
    expect(profile.profile.map((m) => m.content).sort()).toEqual(['User lives in Lisbon', "User's name is Priya"]);
    expect(profile.pinned).toEqual([]);
  });

  it('context opens with the standing sections whatever the query, and exposes them', async () => {
    const { context } = await client.context({
      sessionId: 'next',
      query: 'What should I make for dinner?',
      tokenBudget: 600,
    });
    expect(context.markdown).toMatch(
      /^## Standing instructions\n- Always include version numbers when I ask about libraries\. \(stated \d{4}-\d{2}-\d{2}\)\n\n## About the user\n/,
    );
    expect(context.standing.instructions).toMatchObject({ title: 'Standing instructions', leftOut: 0 });
    expect(context.standing.instructions.items.map((i) => [i.kind, i.reason])).toEqual([
      [SearchKind.Instruction, ContextItemReason.Standing],
    ]);
    // Dinner touches none of the three things known about the user: they share a small part of the
    // budget (docs/memory-kinds.md), the section saying how many it left out.
    const about = context.standing.about;
    expect(about.items.length).toBeGreaterThanOrEqual(1);
    expect(about.items.length + about.leftOut).toBe(3);
    for (const item of about.items) expect([SearchKind.Preference, SearchKind.Profile]).toContain(item.kind);
    if (about.leftOut > 0) expect(context.markdown).toContain(`(${about.leftOut} more about the user not shown)`);
    expect(context.standing.tokens).toBeLessThanOrEqual(0.35 * 600);
    expect(context.tokensUsed).toBeLessThanOrEqual(600);
  });

  it('pins and unpins any memory; a pinned one is in every block; editing an instruction keeps its history', async () => {
    const apples = (await client.search({ query: 'apples market', kinds: [SearchKind.Fact] })).search[0]!;
    const pinned = (await client.pinMemory({ id: apples.id })).pinMemory;
    expect(pinned).toMatchObject({ id: apples.id, pinned: true, protected: true });
    expect((await client.profile()).profile.pinned.map((m) => m.id)).toEqual([apples.id]);
    const { context } = await client.context({ sessionId: 'next', query: 'libraries for charts', tokenBudget: 600 });
    expect(context.standing.about.items[0]).toMatchObject({
      id: apples.id,
      kind: SearchKind.Fact,
      reason: ContextItemReason.Standing,
    });
    // "on Saturday" is dated by the real clock ("on 28 November 2026" the day after): any wording of it.
    expect(context.markdown).toMatch(/- User went to the market [^\n]*\(pinned, stated /);
    expect((await client.unpinMemory({ id: apples.id })).unpinMemory.pinned).toBe(false);
    expect((await client.profile()).profile.pinned).toEqual([]);

    const instruction = (await client.profile()).profile.instructions[0]!;
    await client.pinMemory({ id: instruction.id });
    const { editInstruction } = await client.editInstruction({
      id: instruction.id,
      content: 'Always include version numbers and release dates when I ask about libraries.',
    });
    expect(editInstruction.previous).toMatchObject({ id: instruction.id, status: 'ARCHIVED' });
    expect(editInstruction.memory).toMatchObject({
      kind: MemoryKind.Instruction,
      pinned: true,
      status: 'ACTIVE',
      content: 'Always include version numbers and release dates when I ask about libraries.',
    });
    const { memory } = await client.memory({ id: editInstruction.memory.id });
    expect(memory!.supersedes.map((m) => m.id)).toEqual([instruction.id]);
    expect(memory!.decisions.map((d) => d.action)).toContain('CREATED');
    expect((await client.memory({ id: instruction.id })).memory!.decisions.map((d) => d.action)).toEqual(
      expect.arrayContaining(['PINNED', 'SUPERSEDED']),
    );
  });

  it('bad input is an error with a code and changes nothing', async () => {
    const fact = (await client.search({ query: 'apples', kinds: [SearchKind.Fact] })).search[0]!;
    const instruction = (await client.profile()).profile.instructions[0]!;
    const archived = (await client.memories({ status: 'ARCHIVED' as never })).memories.edges[0]!.node;
    await new Promise((resolve) => setTimeout(resolve, 20)); // reads note their access just after answering
    const before = fingerprint();
    expect((await failure(client.pinMemory({ id: 424_242 }))).code).toBe('NOT_FOUND');
    expect((await failure(client.unpinMemory({ id: -3 }))).code).toBe('BAD_USER_INPUT');
    const notInstruction = await failure(client.editInstruction({ id: fact.id, content: 'Never mind' }));
    expect(notInstruction.code).toBe('BAD_USER_INPUT');
    expect(notInstruction.message).toMatch(/^id: memory \d+ is a fact, not an instruction/);
    expect((await failure(client.editInstruction({ id: instruction.id, content: '   ' }))).code).toBe('BAD_USER_INPUT');
    expect((await failure(client.editInstruction({ id: archived.id, content: 'Always reply in haiku.' }))).code).toBe(
      'BAD_USER_INPUT',
    );
    expect((await failure(client.profile({ limit: 0 }))).code).toBe('BAD_USER_INPUT');
    expect((await failure(client.pinMemory({ id: archived.id }))).message).toMatch(/archived/);
    expect(fingerprint()).toBe(before);
  });
});

describe('sm profile', () => {
  const db = join(mkdtempSync(join(tmpdir(), 'sm-profile-')), 'memory.db');

  beforeAll(async () => {
    for (const text of TURNS)
      expect((await sm(['--db', db, 'add-turn', '--session', 'chat', '--role', 'user', '--text', text])).code).toBe(0);
  }, 60_000);

  it('lists the profile, pins, unpins and edits, in text and JSON', { timeout: 60_000 }, async () => {
    const text = await sm(['--db', db, 'profile'], { NO_COLOR: '1' });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(
      /^Standing instructions:\n {2}#\d+ Always include version numbers when I ask about libraries\.\nPreferences:\n {2}#\d+ User prefers simple, minimal dependencies\nProfile:\n/,
    );
    const json = await sm(['--db', db, 'profile', 'list', '--json']);
    const id = json.json.instructions[0].id as number;
    expect(json.json.total).toBe(4);
    const pinned = await sm(['--db', db, 'profile', 'pin', '--id', String(id), '--json']);
    expect(pinned.json).toMatchObject({ id, pinned: true });
    expect((await sm(['--db', db, 'profile'], { NO_COLOR: '1' })).stdout).toContain(
      `#${id} Always include version numbers when I ask about libraries. (pinned)`,
    );
    expect((await sm(['--db', db, 'profile', 'unpin', '--id', String(id)], { NO_COLOR: '1' })).stdout).toMatch(
      new RegExp(`^unpinned #${id} `),
    );
    const edited = await sm(
      ['--db', db, 'profile', 'edit', '--id', String(id), '--text', 'Never include version numbers.'],
      { NO_COLOR: '1' },
    );
    expect(edited.stdout).toMatch(new RegExp(`^#\\d+ Never include version numbers\\. \\(supersedes #${id}\\)`));
  });

  it("a bad or missing id exits 2 naming --id; another user's memory is not found", { timeout: 60_000 }, async () => {
    const bad = await sm(['--db', db, 'profile', 'pin', '--id', 'seven']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--id/);
    const missing = await sm(['--db', db, 'profile', 'unpin']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--id/);
    const id = (await sm(['--db', db, 'profile', '--json'])).json.profile[0].id as number;
    const other = await sm(['--db', db, '--user', 'bob', 'profile', 'pin', '--id', String(id)]);
    expect(other.code).not.toBe(0);
    expect(other.stderr).toMatch(/not found/);
    expect((await sm(['--db', db, '--user', 'bob', 'profile', '--json'])).json.total).toBe(0);
  });
});
