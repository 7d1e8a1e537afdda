// The CLI's memory spaces through the real `sm` executable: --user / --agent and SM_USER, token
// create / list / revoke, users, forget-user, export / import --user; embedded and with --url.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sm } from '../helpers/sm-cli.ts';
import { smServe } from '../helpers/sm-serve.ts';

const freshDir = () => mkdtempSync(join(tmpdir(), 'sm-spaces-'));

describe('sm with --user (embedded)', () => {
  const dir = freshDir();
  const db = join(dir, 'memory.db');
  const run = (args: string[], env: Record<string, string> = {}) => sm(['--db', db, ...args], env);

  it("keeps each user's memory apart; SM_USER is the same as --user", async () => {
    expect(
      (await run(['--user', 'alice', 'add-turn', '--session', 's1', '--role', 'user', '--text', 'I live in Berlin']))
        .code,
    ).toBe(0);
    expect(
      (await run(['add-turn', '--session', 's1', '--role', 'user', '--text', 'I live in Zanzibar'], { SM_USER: 'bob' }))
        .code,
    ).toBe(0);
    const alice = await run(['--user', 'alice', 'list', '--json']);
    expect(alice.json.memories.map((m: any) => [m.userId, m.content])).toEqual([['alice', 'User lives in Berlin']]);
    expect((await run(['--user', 'alice', 'search', 'Zanzibar', '--json'])).json).toEqual([]);
    expect((await run(['search', 'Zanzibar', '--json'], { SM_USER: 'bob' })).json.length).toBeGreaterThan(0);
    // Without a user: the default space, empty here.
    expect((await run(['list', '--json'])).json.memories).toEqual([]);
    const users = await run(['users', '--json']);
    expect(users.json.users.map((u: any) => [u.id, u.turns])).toEqual([
      ['alice', 1],
      ['bob', 1],
    ]);
  });

  it('a malformed --user / SM_USER is a usage error naming the flag, and writes nothing', async () => {
    const before = (await run(['users', '--json'])).json.totalCount;
    const flag = await run(['--user', 'not ok', 'remember', '--text', 'x']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/^sm: --user: /);
    const env = await run(['remember', '--text', 'x'], { SM_USER: 'x'.repeat(129) });
    expect(env.code).toBe(2);
    expect(env.stderr).toMatch(/^sm: SM_USER: /);
    const agent = await run(['--user', 'alice', '--agent', 'a/b', 'remember', '--text', 'x']);
    expect(agent.stderr).toMatch(/^sm: --agent: /);
    expect((await run(['users', '--json'])).json.totalCount).toBe(before);
  });

  it("export --user writes that user's records only, import --user moves them to another user", async () => {
    const file = join(dir, 'alice.jsonl');
    expect((await run(['--user', 'alice', 'export', '--out', file])).code).toBe(0);
    const records = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(records[0]).toMatchObject({ type: 'header', version: 2 });
    const owned = records.filter((r) => 'userId' in r);
    expect(owned.length).toBeGreaterThan(2);
    expect(owned.every((r) => r.userId === 'alice')).toBe(true);
    expect(readFileSync(file, 'utf8')).not.toContain('Zanzibar');
    expect((await run(['--user', 'carol', 'import', file])).code).toBe(0);
    const carol = await run(['--user', 'carol', 'list', '--json']);
    expect(carol.json.memories.map((m: any) => [m.userId, m.content])).toEqual([['carol', 'User lives in Berlin']]);
    expect((await run(['--user', 'alice', 'list', '--json'])).json.memories).toHaveLength(1);
  });

  it('forget-user needs --user and --yes, then erases the user', async () => {
    const noUser = await run(['forget-user', '--yes']);
    expect(noUser.code).toBe(2);
    expect(noUser.stderr).toMatch(/--user: required/);
    const noYes = await run(['--user', 'bob', 'forget-user']);
    expect(noYes.code).toBe(2);
    expect(noYes.stderr).toMatch(/--yes/);
    expect((await run(['--user', 'bob', 'list', '--json'])).json.memories).toHaveLength(1);
    const gone = await run(['--user', 'bob', 'forget-user', '--yes', '--json']);
    expect(gone.json).toMatchObject({ userId: 'bob', turns: 1, sessions: 1, memories: 1 });
    expect((await run(['users', '--json'])).json.users.map((u: any) => u.id)).toEqual(['alice', 'carol']);
  });
});

describe('sm tokens against a running server', () => {
  const dir = freshDir();
  const db = join(dir, 'memory.db');
  const ADMIN = 'cli-admin-token-4b9e2f7d1a';
  let server: Awaited<ReturnType<typeof smServe>>;
  beforeAll(async () => {
    server = await smServe(db, ['--no-scheduler'], { SM_API_TOKEN: ADMIN });
  });
  afterAll(() => server?.stop());
  const remote = (args: string[], token = ADMIN) => sm(['--url', server.url, '--token', token, ...args]);

  it('creates a token shown once, which reaches only its user; list never shows it; revoke refuses it at once', async () => {
    await remote(['--user', 'erin', 'remember', '--text', 'Erin plays the cello']);
    await remote(['--user', 'frank', 'remember', '--text', 'Frank keeps bees']);
    const created = await remote(['--user', 'erin', 'token', 'create', '--read-only', '--label', 'viewer', '--json']);
    expect(created.code).toBe(0);
    const token: string = created.json.token;
    expect(token).toMatch(/^smt_[A-Za-z0-9_-]{40,}$/);
    expect(created.json.accessToken).toMatchObject({ userId: 'erin', readOnly: true, label: 'viewer' });

    const erin = await remote(['list', '--json'], token);
    expect(erin.json.memories.map((m: any) => m.content)).toEqual(['Erin plays the cello']);
    const other = await remote(['--user', 'frank', 'list'], token);
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/FORBIDDEN|only reach its own user/);
    const write = await remote(['remember', '--text', 'Erin likes jazz'], token);
    expect(write.code).not.toBe(0);
    expect(write.stderr).toMatch(/read-only/);

    const listed = await remote(['token', 'list']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain('erin');
    expect(listed.stdout).not.toContain(token);
    const id = created.json.accessToken.id;
    expect((await remote(['token', 'revoke', String(id)])).code).toBe(0);
    const refused = await remote(['list'], token);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/401|revoked|token/i);
    // A user token cannot manage tokens.
    const second = (await remote(['--user', 'erin', 'token', 'create', '--json'])).json.token;
    const denied = await remote(['--user', 'erin', 'token', 'create'], second);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toMatch(/admin token/);
  });
});
