// The typed client: generated from the committed schema, kept fresh, free of server code.
// As a package (packed, installed, ESM and CommonJS): test/packages/client-package.test.ts.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { generateSdk, SDK_FILE } from '../../codegen.ts';

const ROOT = join(import.meta.dirname, '../..');

describe('typed client', () => {
  it('generated code is up to date (npm run codegen)', async () => {
    const fresh = await generateSdk(ROOT);
    expect(fresh === readFileSync(join(ROOT, SDK_FILE), 'utf8'), `${SDK_FILE} is stale: run npm run codegen`).toBe(
      true,
    );
  });

  it('has one method per API operation, named after its root field', async () => {
    const { getSdk } = await import('../../client/src/generated/sdk.ts');
    const methods = Object.keys(getSdk(() => Promise.resolve({}) as never)).sort();
    const schema = buildSchema(readFileSync(join(ROOT, 'server/graphql/schema.graphql'), 'utf8'));
    const roots = [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()].flatMap((type) =>
      Object.keys(type!.getFields()),
    );
    expect(methods).toEqual(roots.sort());
    expect(methods).toEqual(
      expect.arrayContaining([
        'addTurn',
        'confirmMemory',
        'context',
        'correctMemory',
        'explain',
        'forget',
        'gc',
        'memories',
        'memory',
        'memoryEvents',
        'remember',
        'session',
        'sessions',
        'stats',
        'turnAdded',
        'turns',
        'updateMemory',
        'entity',
        'entities',
        'consolidateSession',
        'consolidationEvents',
        'runMaintenance',
        'jobs',
        'runJobs',
        'search',
        'config',
        'setConfig',
        'doctor',
      ]),
    );
  });

  it('imports nothing from the server or the schema code', () => {
    const files = readdirSync(join(ROOT, 'client/src'), { recursive: true, withFileTypes: true }).filter((e) =>
      e.isFile(),
    );
    for (const file of files) {
      const text = readFileSync(join(file.parentPath, file.name), 'utf8');
      expect(text, file.name).not.toMatch(/from ['"](\.\.\/)+(server|schema|drizzle)\//);
      expect(text, file.name).not.toMatch(/from ['"](graphql-yoga|@pothos\/|better-sqlite3|drizzle-orm)/);
    }
  });
});
