// The benchmark scripts keep working: each runs on a tiny LoCoMo-format conversation made here
// (the real data sets are not part of the repository) and prints the JSON it promises.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CLASSES } from '../../bench/extract-fragments.ts';
import { renderTurnWeights } from '../../bench/turn-weights-file.ts';
import { CHAT_TURN_WEIGHTS, DEFAULT_TURN_WEIGHTS } from '../../server/core/search/turn-weights.ts';
import { startOpenAiServer } from '../helpers/openai-server.ts';

const run = promisify(execFile);
const TSX = join(import.meta.dirname, '../..', 'node_modules', 'tsx', 'dist', 'cli.mjs');
const bench = async (script: string, ...args: string[]) =>
  JSON.parse(
    (
      await run(process.execPath, [TSX, join(import.meta.dirname, '../..', 'bench', script), '--json', ...args], {
        env: { ...process.env, SM_LOG_LEVEL: 'error' },
      })
    ).stdout,
  );

const turn = (id: string, speaker: string, text: string) => ({ speaker, dia_id: id, text });
const tiny = {
  conversation: {
    speaker_a: 'Ana',
    speaker_b: 'Ben',
    session_1_date_time: '1:56 pm on 8 May, 2023',
    session_1: [
      turn('D1:1', 'Ana', 'Hi Ben! I went to a pottery class yesterday and loved it.'),
      turn('D1:2', 'Ben', 'Nice! I just adopted a dog named Rex.'),
      turn('D1:3', 'Ana', 'I live in Lisbon now, I moved there last year.'),
    ],
    session_2_date_time: '10:00 am on 20 May, 2023',
    session_2: [
      turn('D2:1', 'Ben', 'Rex chewed my running shoes.'),
      turn('D2:2', 'Ana', 'My sister Maria is visiting next week.'),
    ],
  },
  observation: {
    session_1_observation: {
      Ana: [
        ['Ana attended a pottery class and loved it.', 'D1:1'],
        ['Ana moved to Lisbon last year.', 'D1:3'],
      ],
      Ben: [['Ben adopted a dog named Rex.', 'D1:2']],
    },
    session_2_observation: {
      Ben: [["Rex chewed Ben's running shoes.", 'D2:1']],
      Ana: [["Ana's sister Maria is visiting next week.", 'D2:2']],
    },
  },
  qa: [
    { question: 'What class did Ana take?', answer: 'pottery', evidence: ['D1:1'], category: 4 },
    { question: "What is the name of Ben's dog?", answer: 'Rex', evidence: ['D1:2'], category: 4 },
    { question: 'When is Maria visiting?', answer: 'next week', evidence: ['D2:2'], category: 2 },
    // Evidence as the data set sometimes writes it: two ids in one item, a stray colon.
    { question: 'What did Rex chew?', answer: 'shoes', evidence: ['D2:1; D:1:2'], category: 1 },
    { question: 'Who is the adversary?', adversarial_answer: 'n/a', evidence: ['D1:1'], category: 5 },
  ],
};

/** A BEAM chat folder: a user and an assistant, dated by time anchors, evidence as message ids. */
function beamChat(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sm-beam-'));
  const m = (id: number, role: string, content: string, anchor?: string) => ({
    role,
    id,
    content: `${content} ->-> 1,${id}`,
    ...(anchor ? { time_anchor: anchor } : {}),
  });
  const code = '```python\nimport sqlite3\nconn = sqlite3.connect("budget.db")\n```';
  writeFileSync(
    join(dir, 'chat.json'),
    JSON.stringify([
      {
        batch_number: 1,
        turns: [
          [
            m(0, 'user', 'I am building a budget tracker in Flask, deadline March 29.', 'March-15-2024'),
            m(1, 'assistant', `Sure. Start with the database.\n\n${code}`),
          ],
        ],
      },
      {
        batch_number: 2,
        turns: [
          [
            m(2, 'user', 'I switched the database from SQLite to PostgreSQL.', 'April-05-2024'),
            m(3, 'assistant', 'Good choice for concurrent writes.'),
          ],
        ],
      },
    ]),
  );
  writeFileSync(
    join(dir, 'probing_questions.json'),
    JSON.stringify({
      abstention: [{ question: 'What is my cat called?', source_chat_ids: null }],
      information_extraction: [{ question: 'When is the budget tracker deadline?', source_chat_ids: [0] }],
      knowledge_update: [
        {
          question: 'Which database does the tracker use now?',
          source_chat_ids: { original_info: [0], updated_info: [2] },
        },
      ],
      event_ordering: [{ question: 'In what order did I set up the database?', source_chat_ids: [1, [2, 2]] }],
    }),
  );
  return dir;
}

/** A conversation file as split out per conversation, or (`array`) the data set's own array of them. */
function conversation(name = 'conv-tiny', array = false): string {
  const file = join(mkdtempSync(join(tmpdir(), 'sm-bench-')), `${name}.json`);
  writeFileSync(
    file,
    JSON.stringify(
      array
        ? [
            { sample_id: 'conv-1', ...tiny },
            { sample_id: 'conv-2', ...tiny },
          ]
        : tiny,
    ),
  );
  return file;
}

describe('benchmarks', () => {
  it('bench:locomo reports recall@k per system and category, and latency', { timeout: 120_000 }, async () => {
    const result = await bench('locomo.ts', '--k', '1,5', conversation());
    expect(result.questions).toBe(4); // the adversarial question is skipped
    expect(result.systems.map((s: { name: string }) => s.name)).toEqual(['symbiosis', 'bm25', 'minisearch']);
    for (const system of result.systems) {
      expect(Object.keys(system.recall)).toEqual(['1', '5']);
      expect(system.recall['5']).toBeGreaterThanOrEqual(system.recall['1']);
      // Any evidence turn in the top k counts a question whole: never below the mean recall.
      for (const k of ['1', '5']) expect(system.any[k]).toBeGreaterThanOrEqual(system.recall[k]);
      expect(system.byCategory['4']).toBeDefined();
      expect(system.latencyMs.p95).toBeGreaterThanOrEqual(system.latencyMs.p50);
    }
    expect(result.systems[0].recall['5']).toBe(1);
    expect(result.systems[0].any['5']).toBe(1);
  });

  it('bench:locomo reads a BEAM chat folder beside a LoCoMo file and reports each data set on its own, beside plain BM25', {
    timeout: 120_000,
  }, async () => {
    const result = await bench('locomo.ts', '--k', '1,5', beamChat(), conversation());
    expect(Object.keys(result.datasets).sort()).toEqual(['beam', 'locomo']);
    const beam = result.datasets.beam;
    // Abstention has no evidence turn: counted, not asked.
    expect(beam).toMatchObject({ conversations: 1, questions: 3, unasked: { abstention: 1 }, refused: 0 });
    expect(result.datasets.locomo.questions).toBe(4);
    expect(beam.systems.map((s: { name: string }) => s.name)).toEqual(['symbiosis', 'bm25', 'minisearch']);
    for (const system of beam.systems)
      expect(Object.keys(system.byCategory).sort()).toEqual([
        'event_ordering',
        'information_extraction',
        'knowledge_update',
      ]);
    // Four turns: everything is in the top 5, for ours and the baseline.
    for (const system of beam.systems.slice(0, 2)) expect(system.recall['5']).toBe(1);
    expect(result.questions).toBe(7);
  });

  it('bench:context reads a BEAM chat folder: evidence in the block per ability, beside plain BM25 packed', {
    timeout: 120_000,
  }, async () => {
    const result = await bench('context.ts', '--budgets', '2000', beamChat());
    expect(result.datasets.beam.questions).toBe(3);
    const named = (name: string) => result.datasets.beam.systems.find((s: { system: string }) => s.system === name);
    const [context, plain] = [named('context'), named('bm25 turns packed')];
    expect(Object.keys(context.budgets['2000'].byCategory).sort()).toEqual([
      'event_ordering',
      'information_extraction',
      'knowledge_update',
    ]);
    expect(context.budgets['2000'].all.recall).toBe(1);
    expect(plain.budgets['2000'].all.recall).toBe(1);
  });

  it("bench:locomo --crowd puts the conversation beside another user's turns and still finds its evidence", {
    timeout: 120_000,
  }, async () => {
    const result = await bench('locomo.ts', '--k', '5', '--crowd', '300', conversation());
    expect(result.systems.map((s: { name: string }) => s.name)).toEqual([
      'symbiosis, beside 300 turns of another user',
    ]);
    expect(result.systems[0].recall['5']).toBe(1);
  });

  it("bench:locomo reads the data set's own file, an array of conversations", { timeout: 120_000 }, async () => {
    const result = await bench('locomo.ts', '--k', '5', conversation('locomo10', true));
    expect(result.questions).toBe(8);
  });

  it('bench:locomo --embedding-endpoint embeds the turns and each question through the endpoint', {
    timeout: 120_000,
  }, async () => {
    const server = await startOpenAiServer(undefined, { native: 64 });
    try {
      const result = await bench(
        'locomo.ts',
        '--k',
        '5',
        '--embedding-endpoint',
        server.url,
        '--embedding-model',
        'hash-embed',
        '--embedding-dimensions',
        '64',
        conversation(),
      );
      expect(result.systems[0].recall['5']).toBe(1);
      const embedded = server.requests
        .filter((r) => r.path.endsWith('/embeddings'))
        .flatMap((r) => [r.body.input].flat() as string[]);
      expect(embedded).toContain('What class did Ana take?');
      expect(embedded.some((text) => text.includes('I went to a pottery class yesterday'))).toBe(true);
      expect(server.requests.find((r) => r.path.endsWith('/embeddings'))!.body).toMatchObject({
        model: 'hash-embed',
        dimensions: 64,
      });
    } finally {
      await server.close();
    }
  });

  it('bench:locomo refuses embedding flags that do not make an endpoint (exit 2, naming the flag)', {
    timeout: 60_000,
  }, async () => {
    for (const [args, message] of [
      [['--embedding-endpoint', 'http://127.0.0.1:1/v1'], /--embedding-endpoint and --embedding-model go together/],
      [['--embedding-endpoint', 'not a url', '--embedding-model', 'm'], /--embedding-endpoint: a URL/],
      [
        ['--embedding-endpoint', 'http://127.0.0.1:1/v1', '--embedding-model', 'm', '--embedding-dimensions', '0'],
        /--embedding-dimensions: 1 to 4096/,
      ],
    ] as const) {
      const failure = await bench('locomo.ts', ...args, conversation()).then(
        () => null,
        (error: { code: number; stderr: string }) => error,
      );
      expect(failure?.code).toBe(2);
      expect(failure?.stderr).toMatch(message);
    }
  });

  it('a missing or non-LoCoMo file is one line on stderr and exit code 1', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sm-bench-'));
    writeFileSync(join(dir, 'other.json'), JSON.stringify({ hello: 'world' }));
    for (const [file, message] of [
      [join(dir, 'absent.json'), /absent\.json: no such file/],
      [join(dir, 'other.json'), /other: no sessions/],
    ] as const) {
      const failure = await bench('locomo.ts', file).then(
        () => null,
        (error: { code: number; stderr: string }) => error,
      );
      expect(failure?.code).toBe(1);
      expect(failure?.stderr.trim()).toMatch(message);
      expect(failure?.stderr).not.toMatch(/\n\s+at /); // no stack trace
    }
  });

  it('bench:fit refits the turn ranker and reports recall with each conversation left out', {
    timeout: 120_000,
  }, async () => {
    const result = await bench('fit-ranker.ts', conversation('conv-a'), conversation('conv-b'));
    expect(result.conversations).toHaveLength(2);
    expect(result.all.questions).toBe(8);
    for (const c of result.conversations) expect(c.heldOut['20']).toBeGreaterThanOrEqual(c.heldOut['5']);
    expect(result.all.heldOutAnyAt10).toBeGreaterThanOrEqual(result.all.heldOut['10']);
    expect(result.all.heldOutAnyAt10).toBeLessThanOrEqual(1);
    expect(result.all.current['5']).toBe(1);
    expect(Object.keys(result.fitted.weights)).toContain('windowCoverage');
  });

  it('bench:fit fits BEAM chats and LoCoMo together: chat weights for the chats, each conversation left out beside plain BM25', {
    timeout: 120_000,
  }, async () => {
    const result = await bench('fit-ranker.ts', beamChat(), beamChat(), conversation('conv-a'));
    expect(
      result.conversations.map((c: { dataset: string; chat: number; questions: number }) => [
        c.dataset,
        c.chat === c.questions,
      ]),
    ).toEqual([
      ['beam', true],
      ['beam', true],
      ['locomo', false],
    ]);
    for (const c of result.conversations) expect(c.marginAt10).toBeCloseTo(c.heldOut['10'] - c.bm25['10'], 2);
    expect(Object.keys(result.datasets).sort()).toEqual(['beam', 'locomo']);
    expect(Object.keys(result.datasets.beam.byCategory).sort()).toEqual([
      'event_ordering',
      'information_extraction',
      'knowledge_update',
    ]);
    expect(Object.keys(result.fitted.chatWeights)).toContain('assistant');
  });

  it('the committed turn weights are the file bench:fit --write renders, and it refuses a weight that is not a number', () => {
    const file = join(import.meta.dirname, '../..', 'server', 'core', 'search', 'turn-weights.ts');
    expect(readFileSync(file, 'utf8')).toBe(renderTurnWeights(DEFAULT_TURN_WEIGHTS, CHAT_TURN_WEIGHTS));
    expect(() => renderTurnWeights({ ...DEFAULT_TURN_WEIGHTS, coverage: Number.NaN }, CHAT_TURN_WEIGHTS)).toThrow(
      /coverage/,
    );
  });

  it("bench:fit with an embedding endpoint fits the model's cosine with the rest", { timeout: 120_000 }, async () => {
    const server = await startOpenAiServer(undefined, { native: 64 });
    try {
      const result = await bench(
        'fit-ranker.ts',
        '--embedding-endpoint',
        server.url,
        '--embedding-model',
        'hash-embed',
        '--embedding-dimensions',
        '64',
        conversation('conv-a'),
        conversation('conv-b'),
      );
      expect(result.all.questions).toBe(8);
      expect(result.fitted.weights).toHaveProperty('vector');
      expect(
        server.requests.filter((r) => r.path.endsWith('/embeddings')).flatMap((r) => [r.body.input].flat()),
      ).toContain('What class did Ana take?');
    } finally {
      await server.close();
    }
  });

  it('bench:context reports evidence-in-context and tokens per budget and category, beside packed search turns', {
    timeout: 120_000,
  }, async () => {
    const result = await bench('context.ts', '--budgets', '50,2000', '--questions', conversation());
    expect(result).toMatchObject({ questions: 4, budgets: [50, 2000], tokenizer: 'o200k_base' });
    // --questions: the block's evidence for each question at each budget, to diff two runs by.
    expect(result.perQuestion).toHaveLength(8);
    expect(result.perQuestion).toContainEqual({
      conversation: 'conv-tiny',
      category: '4',
      budget: 2000,
      recall: 1,
      question: 'What class did Ana take?',
    });
    expect(result.systems.map((s: { system: string }) => s.system)).toEqual([
      'context',
      'context, lines count requests',
      'context without timeline',
      'search turns packed',
      'bm25 turns packed',
    ]);
    for (const system of result.systems) {
      for (const budget of ['50', '2000']) {
        const { all, byCategory, byConversation } = system.budgets[budget];
        expect(all.n).toBe(4);
        expect(all.tokens).toBeGreaterThan(0);
        expect(all.tokens).toBeLessThanOrEqual(Number(budget));
        expect(all.any).toBeGreaterThanOrEqual(all.recall);
        expect(Object.keys(byCategory).sort()).toEqual(['1', '2', '4']);
        expect(byConversation['conv-tiny'].n).toBe(4);
      }
      // The whole conversation fits in 2,000 tokens: every evidence turn is in, whichever way it is packed.
      expect(system.budgets['2000'].all.recall).toBe(1);
      expect(system.budgets['2000'].all.tokens).toBeGreaterThan(system.budgets['50'].all.tokens);
    }
    expect(result.systems[0].budgets['50'].latencyMs.p95).toBeGreaterThanOrEqual(
      result.systems[0].budgets['50'].latencyMs.p50,
    );
  });

  it('bench:context with an embedding endpoint builds each block with the question embedded; --fit refuses one', {
    timeout: 120_000,
  }, async () => {
    const server = await startOpenAiServer(undefined, { native: 64 });
    try {
      const result = await bench(
        'context.ts',
        '--budgets',
        '2000',
        '--embedding-endpoint',
        server.url,
        '--embedding-model',
        'hash-embed',
        '--embedding-dimensions',
        '64',
        conversation(),
      );
      expect(result.systems[0].budgets['2000'].all.recall).toBe(1);
      const embedded = server.requests
        .filter((r) => r.path.endsWith('/embeddings'))
        .flatMap((r) => [r.body.input].flat() as string[]);
      // Once for the yardstick's search, once for the block.
      expect(embedded.filter((text) => text === 'What class did Ana take?')).toHaveLength(2);
      const failure = await bench(
        'context.ts',
        '--fit',
        '--embedding-endpoint',
        server.url,
        '--embedding-model',
        'm',
        conversation('conv-a'),
        conversation('conv-b'),
      ).then(
        () => null,
        (error: { code: number; stderr: string }) => error,
      );
      expect(failure?.code).toBe(2);
      expect(failure?.stderr).toMatch(/--fit does not take an embedding endpoint/);
    } finally {
      await server.close();
    }
  });

  it('bench:context --fit reports each conversation packed with values fitted on the others', {
    timeout: 120_000,
  }, async () => {
    const result = await bench(
      'context.ts',
      '--budgets',
      '50,100',
      '--fit',
      conversation('conv-a'),
      conversation('conv-b'),
    );
    expect(result.fit.conversations.map((c: { name: string }) => c.name)).toEqual(['conv-a', 'conv-b']);
    for (const c of result.fit.conversations) expect(Object.keys(c.heldOut)).toEqual(['50', '100']);
    expect(Object.keys(result.fit.groups[0].fitted.tuning)).toContain('decay');
  });

  it('bench:context --fit-timeline scores every timeline setting on the questions that get one, each chat left out', {
    timeout: 120_000,
  }, async () => {
    const result = await bench('context.ts', '--budgets', '300', '--fit-timeline', beamChat(), beamChat());
    // Each chat has one question asking for an order; the other two get no timeline and are not asked.
    expect(result.groups.find((g: { group: string }) => g.group === 'beam')).toMatchObject({ questions: 2 });
    expect(result.folds).toHaveLength(2);
    for (const fold of result.folds)
      expect(Object.keys(fold.chosen).sort()).toEqual(Object.keys(result.current).sort());
    for (const group of result.groups) {
      expect(group.heldOut).toHaveLength(1);
      expect(group.current[0]).toBeGreaterThan(0);
    }
  });

  it('bench:extract reports memories per turn, observation coverage and precision, and the labelled set', {
    timeout: 120_000,
  }, async () => {
    const result = await bench('extract.ts', conversation());
    expect(result.overall.locomo).toMatchObject({ turns: 5, observations: 5 });
    expect(result.overall.locomo.coverage).toBeGreaterThan(0.5);
    expect(result.overall.locomo.precision).toBeGreaterThanOrEqual(0.5);
    expect(result.overall.locomo.memoriesPerTurn).toBeGreaterThan(0);
    expect(result.labelled.n).toBeGreaterThanOrEqual(300);
    expect(result.labelled.precision).toBeGreaterThanOrEqual(0.9);
  });

  it('bench:extract-fragments lists what extraction keeps, class by class, and a seeded sample to read', {
    timeout: 120_000,
  }, async () => {
    const [locomo] = await bench('extract-fragments.ts', '--sample', '2', conversation());
    expect(locomo).toMatchObject({ dataset: 'locomo', kept: 4 });
    const contents = (list: { content: string }[]) => list.map((k) => k.content);
    expect(contents(locomo.sample)).toHaveLength(2);
    // The tiny conversation's memories are whole: no class holds one.
    for (const hits of Object.values(locomo.classes)) expect(hits).toEqual([]);
    const again = await bench('extract-fragments.ts', '--sample', '2', conversation());
    expect(contents(again[0].sample)).toEqual(contents(locomo.sample));
    // The classes name the fragments the rules once kept.
    const kept = (rule: string, content: string, clause: string) =>
      ({ dataset: 'locomo', conversation: 'c', turn: 't', rule, content, clause }) as const;
    const classesOf = (k: ReturnType<typeof kept>) =>
      Object.entries(CLASSES)
        .filter(([, test]) => test(k))
        .map(([name]) => name);
    expect(
      classesOf(
        kept(
          'event.past',
          'Melanie bought on 7 May 2023 remind them of family love',
          'These figurines I bought yesterday remind me of family love',
        ),
      ),
    ).toEqual(['cut object (verb + preposition/date)', 'lost subject', 'relative "I" read as the subject']);
    expect(
      classesOf(kept('possession.has', 'Caroline has kids', "I'm creating a library for when I have kids")),
    ).toEqual(['conditional has', 'under 3 content words']);
    expect(
      classesOf(kept('event.past', 'Nate went to a game convention and met new people who weren', 'I went to a game…')),
    ).toEqual([]);
    expect(classesOf(kept('plan.future', 'User is getting an error', "I'm getting an error"))).toEqual([
      'under 3 content words',
      'plan of the moment',
    ]);
  });

  it('bench:scale --users measures one user and many in the same run, with the small user in each file and alone', {
    timeout: 120_000,
  }, async () => {
    const result = await bench('scale.ts', '--sizes', '2000', '--users', '20', '--samples', '20');
    expect(result.machine.cores).toBeGreaterThan(0);
    expect(result.machine.loadAverage).toHaveLength(3);
    expect(result.machine.loadAverageAtStart).toHaveLength(3);
    expect(result.results.map((r: { size: number; users: number }) => [r.size, r.users])).toEqual([
      [2000, 1],
      [2000, 20],
    ]);
    for (const r of result.results) {
      for (const figure of [r.addTurnMs, r.searchMs, r.contextMs, r.smallUserSearchMs, r.smallUserContextMs]) {
        expect(Object.keys(figure)).toEqual(['p50', 'p95', 'p99']);
        expect(figure.p95).toBeGreaterThanOrEqual(figure.p50);
      }
      expect(r.hitsPer50).toBeGreaterThan(0);
      expect(r.smallUserHitsPer50).toBeGreaterThan(0);
    }
    // The small user alone in a file of its 100 turns, the yardstick for its search in the big files.
    expect(result.alone.rows).toBe(100);
    expect(result.alone.hitsPer50).toBeGreaterThan(0);
    // Ratios many/one user in the same run (none for the one-user row), and every target checked.
    expect(
      result.ratios.map((r: { users: number; searchP95VsOneUser: number | null }) => [
        r.users,
        r.searchP95VsOneUser === null,
      ]),
    ).toEqual([
      [1, true],
      [20, false],
    ]);
    for (const r of result.ratios) expect(r.smallUserSearchP95VsAlone).toBeGreaterThan(0);
    expect(result.targets.filter((t: { users: number }) => t.users === 20)).toHaveLength(4);
    for (const t of result.targets) expect(typeof t.met).toBe('boolean');
  });

  it('bench:cli times sm --version and embedded reads beside bare node, against its targets', {
    timeout: 120_000,
  }, async () => {
    const result = await bench('cli.ts', '--size', '200', '--runs', '3');
    expect(result.machine.cores).toBeGreaterThan(0);
    expect([result.size, result.runs]).toEqual([200, 3]);
    for (const figure of [result.nodeMs, result.versionMs, result.searchMs, result.contextMs, result.listMs]) {
      expect(Object.keys(figure)).toEqual(['p50', 'p95']);
      expect(figure.p50).toBeGreaterThan(0);
    }
    expect(typeof result.met.version).toBe('boolean');
    expect(typeof result.met.search).toBe('boolean');
  });
});
