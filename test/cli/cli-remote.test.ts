// The CLI's remote mode: every command prints the same JSON embedded and through --url for the
// same state; export/import round trips; wrong flags, unknown ids and an unreachable server fail
// clearly. Two copies of one database: A is used in process, B behind `sm serve`.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sm } from '../helpers/sm-cli.ts';
import { smServe } from '../helpers/sm-serve.ts';

/** A port nothing listens on. */
const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });

const NOW = { SM_NOW: '2026-06-01T12:00:00.000Z' };
const dir = mkdtempSync(join(tmpdir(), 'sm-remote-'));
const A = join(dir, 'a', 'memory.db');
const B = join(dir, 'b', 'memory.db');
let server: Awaited<ReturnType<typeof smServe>>;

const local = (...args: string[]) => sm(['--db', A, '--json', ...args], NOW);
const remote = (...args: string[]) => sm(['--url', server.url, '--json', ...args], NOW);

async function same(...args: string[]) {
  const [embedded, served] = [await local(...args), await remote(...args)];
  expect(embedded.code, `${args.join(' ')}: ${embedded.stderr}`).toBe(0);
  expect(served.code, `${args.join(' ')} --url: ${served.stderr}`).toBe(0);
  // The two sides are two files: where output names its file (doctor), A's path stands for B's.
  expect(
    served.json === undefined ? undefined : JSON.parse(JSON.stringify(served.json).replaceAll(B, A)),
    args.join(' '),
  ).toEqual(embedded.json);
  return embedded.json;
}

beforeAll(async () => {
  const say = (session: string, name: string, text: string, at: string) =>
    sm(
      ['--db', A, 'add-turn', '--session', session, '--role', 'user', '--name', name, '--text', text, '--at', at],
      NOW,
    );
  await say('s1', 'Ana', 'I met Alice Johnson in Paris and my email is ana@example.com', '2026-05-01T10:00:00Z');
  await say('s1', 'Ana', 'I live in Berlin and I like pottery', '2026-05-01T10:01:00Z');
  await say('s2', 'Ana', 'I moved to Lisbon. Alice called me yesterday', '2026-05-20T09:00:00Z');
  await sm(
    ['--db', A, 'remember', '--text', 'Ana is allergic to peanuts', '--importance', '1', '--tags', 'health'],
    NOW,
  );
  // Accurate entity recognition runs as a background job: let it, so entities exist.
  await sm(['--db', A, 'jobs', '--run'], NOW);
  // B is a copy of A (closed, so its WAL is checkpointed into the file).
  mkdirSync(join(dir, 'b'));
  for (const suffix of ['', '-wal', '-shm']) if (existsSync(A + suffix)) copyFileSync(A + suffix, B + suffix);
  server = await smServe(B, ['--no-jobs'], NOW);
}, 120_000);
afterAll(() => server?.stop());

describe('embedded and --url give the same JSON', () => {
  // Many processes: allow for a busy machine.
  it('for every reading command', { timeout: 300_000 }, async () => {
    const list = await same('list');
    const id = String(list.memories[0].id);
    await same('list', '--status', 'archived');
    await same('show', '--id', id);
    await same('explain', '--id', id);
    await same('get-context', '--session', 's2', '--query', 'pottery');
    await same('search', 'where does Ana live');
    await same('search', 'pottery', '--kinds', 'turn', '--limit', '3');
    // Filters reach the API: only Ana's turns, and a markdown block cut to a small budget.
    const bySpeaker = await same(
      'search',
      'Lisbon Alice',
      '--kinds',
      'turn',
      '--speakers',
      'Nobody',
      '--status',
      'active',
    );
    expect(bySpeaker).toEqual([]);
    const full = await same('get-context', '--session', 's2', '--query', 'pottery');
    const cut = await same('get-context', '--session', 's2', '--query', 'pottery', '--token-budget', '50');
    expect(cut.markdown.length).toBeLessThan(full.markdown.length);
    expect(cut.tokensUsed).toBeLessThanOrEqual(50);
    // Embedded, search, get-context and stats call their services without GraphQL (server/cli/backend.ts): every filter and default.
    await same(
      'search',
      'Alice Lisbon',
      '--kinds',
      'fact,turn',
      '--sessions',
      's1,s2',
      '--from',
      '2026-05-01T00:00:00Z',
      '--to',
      '2026-05-31T00:00:00Z',
    );
    await same('search', 'peanuts', '--tags', 'health', '--exclude-session', 's1');
    await same('search', 'Berlin', '--status', 'archived');
    await same('search', 'Ana', '--user', 'nobody');
    await same('get-context', '--session', 's1');
    await same('get-context', '--session', 'nosuch', '--query', 'Alice');
    await same('stats', '--user', 'default');
    await same('stats', '--user', 'nobody', '--agent', 'a1');
    await same('sessions');
    await same('session', 's1');
    await same('entities');
    await same('entity', 'Alice Johnson');
    await same('stats');
    await same('config', 'get');
    await same('config', 'get', 'scoring.lambda');
    await same('jobs');
    await same('doctor');
  });

  it('for bad input to the reads answered without GraphQL embedded: the same message and exit code', {
    timeout: 300_000,
  }, async () => {
    for (const args of [
      ['search', 'x', '--limit', '0'],
      ['search', 'x', '--limit', '99999999999'],
      ['search', 'x', '--from=-5'],
      ['search', 'x', '--from', '2026-05-02T00:00:00Z', '--to', '2026-05-01T00:00:00Z'],
      ['get-context', '--session', 's1', '--token-budget', '10'],
      ['get-context', '--session', 's1', '--token-budget', '99999999999'],
    ]) {
      const [embedded, served] = [await local(...args), await remote(...args)];
      expect(embedded.code, args.join(' ')).toBe(2);
      expect({ code: served.code, stderr: served.stderr }, args.join(' ')).toEqual({
        code: embedded.code,
        stderr: embedded.stderr,
      });
    }
  });

  it('for every writing command, run in lockstep', { timeout: 300_000 }, async () => {
    const turn = await same(
      'add-turn',
      '--session',
      's2',
      '--role',
      'user',
      '--name',
      'Ana',
      '--text',
      'My favorite food is bacalhau',
    );
    const created = turn.extracted[0].memory.id;
    const remembered = await same('remember', '--text', 'Ana drinks green tea', '--tags', 'food');
    const id = String(remembered.memory.id);
    await same('update', '--id', id, '--tags', 'food,drinks', '--importance', '1');
    await same('confirm', '--id', id);
    await same('correct', '--id', String(created), '--text', 'Ana loves bacalhau');
    await same('consolidate', '--session', 's1');
    await same('gc');
    await same('maintenance', 'decay');
    await same('maintenance', 'reflect');
    await same('maintenance', 'consolidate');
    await same('config', 'set', 'mid.capacity', '400');
    await same('jobs', '--run');
    await same('forget', '--text', 'green tea');
    await same('list', '--status', 'archived');
    await same('export');
  });
});

describe('export and import', () => {
  it('round-trips archived, superseded, pii-tagged and linked memories through a fresh database', async () => {
    const exported = await sm(['--db', A, 'export'], NOW);
    const lines = exported.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const memories = lines.filter((r) => r.type === 'memory');
    expect(memories.some((m) => m.status === 'archived')).toBe(true);
    expect(memories.some((m) => m.tags.includes('pii'))).toBe(true);
    expect(lines.some((r) => r.type === 'relation' && r.kind === 'supersedes')).toBe(true);
    expect(lines.some((r) => r.type === 'source')).toBe(true);
    expect(lines.some((r) => r.type === 'memory_entity' || r.type === 'turn_entity')).toBe(true);

    const file = join(dir, 'backup.jsonl');
    writeFileSync(file, exported.stdout);
    const fresh = join(dir, 'fresh', 'memory.db');
    const imported = await sm(['--db', fresh, 'import', file, '--json'], NOW);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.json.memory.added).toBe(memories.length);
    const again = await sm(['--db', fresh, 'export'], NOW);
    expect(again.stdout).toBe(exported.stdout);

    // Importing twice adds nothing.
    const twice = await sm(['--db', fresh, 'import', file, '--json'], NOW);
    expect(twice.json.memory).toEqual({ added: 0, existing: memories.length });
    expect((await sm(['--db', fresh, 'export'], NOW)).stdout).toBe(exported.stdout);
  });

  it('imports through a running server too, and refuses a file that is not an export', async () => {
    const file = join(dir, 'remote.jsonl');
    writeFileSync(file, (await sm(['--db', A, 'export'], NOW)).stdout);
    const result = await sm(['--url', server.url, 'import', file, '--json'], NOW);
    expect(result.code, result.stderr).toBe(0);
    expect(result.json.lines).toBe(readFileSync(file, 'utf8').trim().split('\n').length);
    writeFileSync(join(dir, 'junk.jsonl'), '{"hello": "world"}\n');
    const junk = await sm(['--db', A, 'import', join(dir, 'junk.jsonl')], NOW);
    expect(junk.code).toBe(2);
    expect(junk.stderr).toMatch(/line 1: expected the symbiosis-memory header/);
  });
});

describe('import --format locomo', () => {
  it("loads the data set's own file (an array of conversations) through addTurn; refuses one that is not LoCoMo", async () => {
    const conversation = (id: string) => ({
      sample_id: id,
      conversation: {
        speaker_a: 'Ana',
        speaker_b: 'Ben',
        session_1_date_time: '1:56 pm on 8 May, 2023',
        session_1: [
          { speaker: 'Ana', dia_id: 'D1:1', text: `I took a pottery class in ${id}.` },
          { speaker: 'Ben', dia_id: 'D1:2', text: 'I adopted a dog named Rex.' },
        ],
      },
      qa: [],
    });
    const file = join(dir, 'locomo10.json');
    writeFileSync(file, JSON.stringify([conversation('conv-1'), conversation('conv-2')]));
    const db = join(dir, 'locomo', 'memory.db');
    const loaded = await sm(['--db', db, 'import', '--format', 'locomo', file, '--json'], NOW);
    expect(loaded.code, loaded.stderr).toBe(0);
    expect(loaded.json).toMatchObject({
      format: 'locomo',
      conversation: 'locomo10:conv-1, locomo10:conv-2',
      sessions: 2,
      turns: 4,
    });
    const session = await sm(['--db', db, 'session', 'locomo10:conv-2:1', '--json'], NOW);
    expect(session.code, session.stderr).toBe(0);
    expect(JSON.stringify(session.json)).toContain('pottery class in conv-2');

    writeFileSync(join(dir, 'not-locomo.json'), JSON.stringify({ hello: 'world' }));
    const refused = await sm(['--db', db, 'import', '--format', 'locomo', join(dir, 'not-locomo.json')], NOW);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/no sessions .*not a LoCoMo conversation/);
    const missing = await sm(['--db', db, 'import', '--format', 'locomo', join(dir, 'absent.json')], NOW);
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim()).toBe(`sm: ${join(dir, 'absent.json')}: no such file`);
  });

  it('a LoCoMo file without --format locomo is named as one, exit 2, and no store is made', async () => {
    const sample = {
      sample_id: 'conv-9',
      conversation: {
        speaker_a: 'Ana',
        speaker_b: 'Ben',
        session_1_date_time: '1:56 pm on 8 May, 2023',
        session_1: [{ speaker: 'Ana', dia_id: 'D1:1', text: 'Hi Ben.' }],
      },
    };
    const files = {
      'one-line.json': JSON.stringify([sample]),
      'pretty.json': JSON.stringify([sample], null, 2),
      'single.json': JSON.stringify(sample.conversation, null, 4),
    };
    for (const [name, content] of Object.entries(files)) {
      writeFileSync(join(dir, name), content);
      const db = join(dir, `sniff-${name}`, 'memory.db');
      const result = await sm(['--db', db, 'import', join(dir, name)], NOW);
      expect(result.code, name).toBe(2);
      expect(result.stderr.trim()).toBe(`sm: ${join(dir, name)} looks like a LoCoMo file: add --format locomo`);
      expect(existsSync(db)).toBe(false);
    }
  });
});

describe('failures', () => {
  it('wrong flags, unknown ids and an unreachable server give a clear message and exit code', {
    timeout: 300_000,
  }, async () => {
    const closed = await freePort();
    const cases: [string[], number, RegExp][] = [
      [['--db', A, 'list', '--sort', 'sideways'], 2, /'sideways' is invalid/],
      [['--db', A, 'list', '--bogus'], 2, /unknown option '--bogus'/],
      [
        ['--db', A, 'search', 'x', '--kinds', 'turn,bogus'],
        2,
        /comma-separated list of fact, reflection, instruction, preference, profile, turn \(got 'bogus'\)/,
      ],
      // Flags the API's 32-bit Int or its DateTime cannot hold fail before any call, naming the flag.
      [['--db', A, 'search', 'x', '--limit', '99999999999'], 2, /'--limit <n>' argument '99999999999' is invalid/],
      [['--url', server.url, 'get-context', '--session', 's1', '--token-budget', '3000000000'], 2, /--token-budget/],
      [
        ['--db', A, 'search', 'x', '--from=-5'],
        2,
        /'--from <time>' argument '-5' is invalid\. expected a time from 1970 on/,
      ],
      [['--db', A, 'show', '--id', '999'], 1, /memory 999 not found/],
      [['--db', A, 'entity', 'Nobody Atall'], 1, /not found/],
      [['--db', A, 'session', 'nope'], 1, /session "nope" not found/],
      [['--db', A, 'maintenance', 'dance'], 2, /'dance' is invalid/],
      [['--db', A, 'config', 'set', 'gc.mode', 'shred'], 2, /gc\.mode/],
      [['--url', server.url, 'show', '--id', '999'], 1, /memory 999 not found/],
      [['--url', server.url, 'remember', '--text', ' '], 2, /must not be empty/],
      [['--url', `http://127.0.0.1:${closed}/graphql`, 'stats'], 1, /cannot reach the server \(ECONNREFUSED\)/],
    ];
    for (const [args, code, message] of cases) {
      const result = await sm(args, NOW);
      expect(result.code, args.join(' ')).toBe(code);
      expect(result.stderr, args.join(' ')).toMatch(message);
    }
  });
});
