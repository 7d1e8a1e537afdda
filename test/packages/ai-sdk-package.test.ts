// The AI SDK package as a user gets it: `npm pack` in ai-sdk/ (its prepack builds the typed client's
// declarations and then itself, ESM and CommonJS, with the root's TypeScript) and the typed client's
// tarball, both installed with `ai` into an empty project, where an ES module and a CommonJS script run a
// two-turn conversation through `withMemory` against a real `sm serve`, and a TypeScript file
// using the package type-checks against the installed declarations.
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type SymbiosisClient } from '../../client/src/index.ts';
import { smServe } from '../helpers/sm-serve.ts';

const ROOT = join(import.meta.dirname, '../..');

type Run = { code: number; stdout: string; stderr: string };
function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env: { ...process.env, ...env }, timeout: 150_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}
const versionOf = (name: string) =>
  (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;

type Packed = { filename: string; files: { path: string }[] };
async function pack(dir: string, destination: string, ...flags: string[]): Promise<Packed> {
  const packed = await run('npm', ['pack', '--json', '--pack-destination', destination, ...flags], dir);
  expect(packed.code, packed.stderr).toBe(0);
  return (JSON.parse(packed.stdout) as Packed[])[0]!;
}

// Two turns of one conversation through the installed package; prints the second call's memory block.
const SCRIPT = (load: string) => `${load}
const prompts = [];
const model = new MockLanguageModelV3({
  doGenerate: async ({ prompt }) => {
    prompts.push(prompt);
    return { content: [{ type: 'text', text: 'answer ' + prompts.length }], finishReason: { unified: 'stop', raw: 'stop' }, usage: { inputTokens: { total: 1 }, outputTokens: { total: 1 } }, warnings: [] };
  },
});
const [session, user] = process.argv.slice(2);
const memory = withMemory(model, { url: process.env.SM_URL, userId: user, sessionId: session });
const run = async () => {
  await generateText({ model: memory, prompt: 'My brother Tom lives in Oslo and teaches maths.' });
  await generateText({ model: memory, prompt: 'Where does my brother live?' });
  console.log(prompts[1].filter((m) => m.role === 'system').map((m) => m.content).join('\\n'));
};
run();
`;

// The ts-expect-error lines fail the check if a type the package exports came through as any.
const CONSUMER = `import { generateText, stepCountIs, wrapLanguageModel, type LanguageModel } from 'ai';
import { createClient } from '@symbiosis-memory/client';
import { memoryMiddleware, memoryTools, withMemory, type MemoryMiddlewareOptions } from '@symbiosis-memory/ai-sdk';

export async function answer(base: Parameters<typeof withMemory>[0], question: string): Promise<string> {
  const options: MemoryMiddlewareOptions = { url: 'http://127.0.0.1:8787/graphql', userId: 'alex', sessionId: 's1', timeoutMs: 500, logger: console };
  const model: LanguageModel = withMemory(base, options);
  const client = createClient({ url: 'http://127.0.0.1:8787/graphql' });
  const shared = wrapLanguageModel({ model: base, middleware: memoryMiddleware({ client, tokenBudget: 500 }) });
  // @ts-expect-error timeoutMs is a number
  withMemory(base, { url: 'x', timeoutMs: 'slow' });
  // @ts-expect-error client is a typed client
  memoryTools({ client: {} });
  await generateText({ model: shared, prompt: question, providerOptions: { symbiosis: { userId: 'alex', sessionId: 's2' } } });
  const { text } = await generateText({ model, prompt: question, tools: memoryTools({ url: options.url, userId: 'alex' }), stopWhen: stepCountIs(3) });
  return text;
}
`;

let work: string;
let project: string;
let packed: Packed;
let server: Awaited<ReturnType<typeof smServe>>;
let sm: SymbiosisClient;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'sm-ai-sdk-package-'));
  packed = await pack(join(ROOT, 'ai-sdk'), work);
  // The client's tarball from a copy with the build ai-sdk's prepack just made (client/build.mjs
  // into ai-sdk/.client) as its dist: packing client/ itself would rebuild client/dist while
  // test/packages/client-package.test.ts may be packing it.
  const stage = join(work, 'client');
  for (const file of ['package.json', 'README.md', 'operations'])
    cpSync(join(ROOT, 'client', file), join(stage, file), { recursive: true });
  cpSync(join(ROOT, 'ai-sdk/.client'), join(stage, 'dist'), { recursive: true });
  const client = await pack(stage, work, '--ignore-scripts');
  project = join(work, 'project');
  mkdirSync(project);
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'ai-sdk-consumer', private: true, version: '1.0.0' }),
  );
  // ai and its dependencies from npm's cache (the root install put them there).
  const install = await run(
    'npm',
    [
      'install',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      join(work, client.filename),
      join(work, packed.filename),
      `ai@${versionOf('ai')}`,
    ],
    project,
  );
  expect(install.code, install.stderr).toBe(0);
  expect(install.stderr).toBe('');
  server = await smServe(join(work, 'memory.db'));
  sm = createClient({ url: server.url });
}, 240_000);

afterAll(async () => {
  await sm?.dispose();
  await server?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('ai-sdk package', () => {
  it('packs the ESM and CommonJS builds and the README, and no sources', () => {
    const files = packed.files.map((f) => f.path);
    for (const file of [
      'dist/esm/index.js',
      'dist/esm/index.d.ts',
      'dist/cjs/index.js',
      'dist/cjs/index.d.ts',
      'dist/cjs/package.json',
      'README.md',
      'package.json',
    ]) {
      expect(files).toContain(file);
    }
    expect(files.filter((f) => !f.startsWith('dist/') && f !== 'README.md' && f !== 'package.json')).toEqual([]);
    expect(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(ROOT, 'ai-sdk/package.json'), 'utf8')) as {
      peerDependencies: Record<string, string>;
    };
    // ai 6 and 7; the installed one among them.
    expect(manifest.peerDependencies.ai).toBe('^6.0.0 || ^7.0.0');
    expect(manifest.peerDependencies.ai!.split(' || ')).toContain(`^${versionOf('ai').split('.')[0]}.0.0`);
  });

  it.each([
    [
      'ESM',
      'run.mjs',
      `import { generateText } from 'ai';\nimport { MockLanguageModelV3 } from 'ai/test';\nimport { withMemory } from '@symbiosis-memory/ai-sdk';`,
    ],
    [
      'CommonJS',
      'run.cjs',
      `const { generateText } = require('ai');\nconst { MockLanguageModelV3 } = require('ai/test');\nconst { withMemory } = require('@symbiosis-memory/ai-sdk');`,
    ],
  ])('as %s, two turns are stored and the second call carries the first', async (kind, file, load) => {
    writeFileSync(join(project, file), SCRIPT(load));
    const session = `pkg-${kind}`;
    const result = await run(process.execPath, [file, session, `user-${kind}`], project, { SM_URL: server.url });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Tom lives in Oslo/);
    const { turns } = await sm.turns({ sessionId: session, userId: `user-${kind}` });
    expect(turns.edges.map((e) => e.node.text)).toEqual([
      'My brother Tom lives in Oslo and teaches maths.',
      'answer 1',
      'Where does my brother live?',
      'answer 2',
    ]);
  });

  it('type-checks a TypeScript user of the package against the installed declarations', async () => {
    // As CommonJS (.ts in a package without "type") and as an ES module (.mts): each resolves its own build's declarations.
    writeFileSync(join(project, 'consumer.ts'), CONSUMER);
    writeFileSync(join(project, 'consumer.mts'), CONSUMER);
    writeFileSync(
      join(project, 'tsconfig.json'),
      // skipLibCheck: ai's own declarations need @types/node and @types/json-schema, which this bare project lacks.
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: [],
        },
        files: ['consumer.ts', 'consumer.mts'],
      }),
    );
    const tsc = await run(
      process.execPath,
      [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'],
      project,
    );
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.code).toBe(0);
  });
});
