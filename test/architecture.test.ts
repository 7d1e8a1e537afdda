// Structural rules: the domain stays free of transport code; generated files stay generated.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name));
}

describe('architecture', () => {
  it('server/core imports no GraphQL, HTTP or CLI code', () => {
    const forbidden = /from ['"](graphql|graphql-yoga|graphql-ws|@pothos\/[^'"]+|ws|commander|node:http|\.\.\/(cli|http)\/[^'"]*|\.\.\/\.\.\/schema\/[^'"]*)['"]/;
    const offenders = sourceFiles(join(ROOT, 'server/core')).filter((file) => forbidden.test(readFileSync(file, 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('drizzle migrations are up to date with drizzle/schema.ts', () => {
    const out = mkdtempSync(join(tmpdir(), 'sm-migrations-'));
    cpSync(join(ROOT, 'drizzle/migrations'), out, { recursive: true });
    const before = readdirSync(out, { recursive: true }).sort();
    const output = execFileSync(process.execPath, [join(ROOT, 'node_modules/drizzle-kit/bin.cjs'), 'generate'], {
      cwd: ROOT,
      // drizzle-kit resolves `out` relative to the project, so hand it a relative path.
      env: { ...process.env, SM_MIGRATIONS_OUT: relative(ROOT, out) },
      encoding: 'utf8',
    });
    expect(output).toContain('No schema changes');
    expect(readdirSync(out, { recursive: true }).sort(), `run npm run db:generate\n${output}`).toEqual(before);
  });
});
