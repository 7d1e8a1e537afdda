// The typed client: generated from the committed schema, kept fresh, free of server code,
// and usable from another project as a built package.
import { execFile, execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { generateSdk, SDK_FILE } from '../codegen.ts';
import { startServer } from './helpers/api-server.ts';

const ROOT = join(import.meta.dirname, '..');

describe('typed client', () => {
  it('generated code is up to date (npm run codegen)', async () => {
    const fresh = await generateSdk(ROOT);
    expect(fresh === readFileSync(join(ROOT, SDK_FILE), 'utf8'), `${SDK_FILE} is stale: run npm run codegen`).toBe(true);
  });

  it('has one method per API operation, named after its root field', async () => {
    const { getSdk } = await import('../client/src/generated/sdk.ts');
    const methods = Object.keys(getSdk(() => Promise.resolve({}) as never)).sort();
    const schema = buildSchema(readFileSync(join(ROOT, 'schema/schema.graphql'), 'utf8'));
    const roots = [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()].flatMap((type) => Object.keys(type!.getFields()));
    expect(methods).toEqual(roots.sort());
    expect(methods).toEqual(
      expect.arrayContaining([
        'addTurn', 'confirmMemory', 'context', 'correctMemory', 'explain', 'forget', 'gc', 'memories', 'memory',
        'memoryEvents', 'remember', 'session', 'sessions', 'stats', 'turnAdded', 'turns', 'updateMemory',
        'entity', 'entities', 'consolidateSession', 'consolidationEvents', 'runMaintenance', 'jobs', 'runJobs',
        'search', 'config', 'setConfig', 'doctor',
      ]),
    );
  });

  it('imports nothing from the server or the schema code', () => {
    const files = readdirSync(join(ROOT, 'client/src'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    for (const file of files) {
      const text = readFileSync(join(file.parentPath, file.name), 'utf8');
      expect(text, file.name).not.toMatch(/from ['"](\.\.\/)+(server|schema|drizzle)\//);
      expect(text, file.name).not.toMatch(/from ['"](graphql-yoga|@pothos\/|better-sqlite3|drizzle-orm)/);
    }
  });

  it('builds as a package that another project installs and uses', async () => {
    // A project of its own: the built package under node_modules, with its dependencies beside it.
    const project = mkdtempSync(join(tmpdir(), 'sm-client-user-'));
    const pkg = join(project, 'node_modules/@symbiosis-memory/client');
    mkdirSync(pkg, { recursive: true });
    copyFileSync(join(ROOT, 'client/package.json'), join(pkg, 'package.json'));
    execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'client/tsconfig.json'), '--outDir', join(pkg, 'dist')]);
    // Its declared dependencies (and ws, the optional peer for Node 20), as an install would put them.
    const declared = JSON.parse(readFileSync(join(ROOT, 'client/package.json'), 'utf8')) as { dependencies: Record<string, string> };
    for (const dep of [...Object.keys(declared.dependencies), 'ws']) symlinkSync(join(ROOT, 'node_modules', dep), join(project, 'node_modules', dep));
    writeFileSync(
      join(project, 'main.mjs'),
      `import WebSocket from 'ws';
import { createClient, Role } from '@symbiosis-memory/client';
const client = createClient({ url: process.env.SM_URL, webSocketImpl: WebSocket });
const events = client.turnAdded({ sessionId: 'ext' })[Symbol.asyncIterator]();
const next = events.next();
let event = null;
for (let i = 0; !event && i < 50; i++) {
  await client.addTurn({ input: { sessionId: 'ext', role: Role.User, text: 'hello from elsewhere', autoExtract: false } });
  event = await Promise.race([next, new Promise((r) => setTimeout(() => r(null), 100))]);
}
const { stats } = await client.stats();
console.log(JSON.stringify({ turns: stats.turns, event: event.value.turnAdded.text }));
await client.dispose();
`,
    );
    const server = await startServer();
    try {
      const { stdout } = await promisify(execFile)(process.execPath, ['main.mjs'], { cwd: project, env: { ...process.env, SM_URL: server.url } });
      const result = JSON.parse(stdout);
      expect(result.event).toBe('hello from elsewhere');
      expect(result.turns).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  });
});
