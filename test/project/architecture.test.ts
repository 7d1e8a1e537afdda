// Structural rules: dependencies run one way between the folders, without cycles; the domain
// stays free of transport code; generated files stay generated.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name));
}

/**
 * The layers, lowest first (each folder's README says the same): a file may import its own layer
 * and the ones below it, never one above. storage/ opens the core's Store (with the core's
 * config rules), so it sits just above the core; the client is its own package, used by the adapters.
 */
const LAYERS = [
  ['drizzle', 'server/logger.ts', 'server/young-generation.ts'],
  ['server/core'],
  ['server/storage'],
  ['server/llm'],
  ['server/jobs'],
  ['server/services'],
  ['client/src'],
  ['server/graphql'],
  ['server/mcp'],
  ['server/http'],
  ['server/cli', 'server/main.ts'],
] as const;

const layerOf = (file: string) => {
  const path = relative(ROOT, file);
  return LAYERS.findIndex((layer) => layer.some((place) => path === place || path.startsWith(`${place}/`)));
};

/** Every relative import (static, dynamic, type-only) of the project's source, as file -> files. */
function importGraph(): Map<string, string[]> {
  const files = [...LAYERS.flat()].flatMap((place) =>
    place.endsWith('.ts') ? [join(ROOT, place)] : sourceFiles(join(ROOT, place)),
  );
  return new Map(
    files.map((file) => {
      const text = readFileSync(file, 'utf8');
      const targets = [...text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)]
        .map((m) => resolve(dirname(file), m[1]!))
        .filter((target) => target.endsWith('.ts') && existsSync(target));
      return [file, targets];
    }),
  );
}

const CORE = join(ROOT, 'server/core');
/** A core file's module: the folder right under server/core. */
const moduleOf = (file: string) => relative(CORE, file).split('/')[0]!;
/** A core file's folder, nested ones apart (entities/ner is not entities). */
const folderOf = (file: string) => relative(CORE, dirname(file));

/** Nodes (by `nodeOf`) of the core's files and, for each, the nodes it imports with one import that shows it. */
function coreGraph(nodeOf: (file: string) => string): Map<string, Map<string, string>> {
  const nodes = new Map<string, Map<string, string>>();
  for (const [file, targets] of importGraph()) {
    if (!file.startsWith(`${CORE}/`)) continue;
    const from = nodeOf(file);
    const edges = nodes.get(from) ?? nodes.set(from, new Map()).get(from)!;
    for (const target of targets) {
      const to = nodeOf(target);
      if (target.startsWith(`${CORE}/`) && to !== from && !edges.has(to))
        edges.set(to, `${relative(CORE, file)} -> ${relative(CORE, target)}`);
    }
  }
  return nodes;
}

describe('architecture', () => {
  it('every source file belongs to a layer, and imports only its own layer and the ones below', () => {
    const graph = importGraph();
    const unplaced = sourceFiles(join(ROOT, 'server')).filter((file) => layerOf(file) < 0);
    expect(
      unplaced.map((f) => relative(ROOT, f)),
      'a file outside every layer: put it in the folder of its role',
    ).toEqual([]);
    const upward = [...graph].flatMap(([file, targets]) =>
      targets
        .filter((target) => layerOf(target) > layerOf(file))
        .map((target) => `${relative(ROOT, file)} -> ${relative(ROOT, target)}`),
    );
    expect(upward).toEqual([]);
  });

  it('has no import cycles', () => {
    const graph = importGraph();
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (file: string, path: string[]) => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        cycles.push([...path.slice(path.indexOf(file)), file].map((f) => relative(ROOT, f)).join(' -> '));
        return;
      }
      state.set(file, 'open');
      for (const target of graph.get(file) ?? []) visit(target, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of graph.keys()) visit(file, []);
    expect(cycles).toEqual([]);
  });

  it('server/core is modules by domain: every file in a module folder, no import cycles between its folders', () => {
    const loose = sourceFiles(CORE).filter((file) => dirname(file) === CORE);
    expect(
      loose.map((f) => relative(ROOT, f)),
      'a core file outside every module: put it in its domain',
    ).toEqual([]);
    const graph = coreGraph(folderOf);
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (folder: string, path: string[]) => {
      if (state.get(folder) === 'done') return;
      if (state.get(folder) === 'open') {
        const cycle = [...path.slice(path.indexOf(folder)), folder];
        cycles.push(
          cycle
            .slice(1)
            .map((to, i) => graph.get(cycle[i]!)!.get(to)!)
            .join(', '),
        );
        return;
      }
      state.set(folder, 'open');
      for (const target of graph.get(folder)?.keys() ?? []) visit(target, [...path, folder]);
      state.set(folder, 'done');
    };
    for (const folder of graph.keys()) visit(folder, []);
    expect(cycles).toEqual([]);
  });

  it("server/core/README.md lists the core's modules lowest first, and each imports only modules before it", () => {
    const listed = [...readFileSync(join(CORE, 'README.md'), 'utf8').matchAll(/^\| `([a-z-]+)\/` \|/gm)].map(
      (m) => m[1]!,
    );
    const graph = coreGraph(moduleOf);
    expect([...listed].sort()).toEqual([...graph.keys()].sort());
    const upward = [...graph].flatMap(([from, edges]) =>
      [...edges].filter(([to]) => listed.indexOf(to) > listed.indexOf(from)).map(([, example]) => example),
    );
    expect(
      upward,
      'an import of a module listed after the importer: move the code down, or pass a function in',
    ).toEqual([]);
  });

  it('every source folder has a README saying what lives there and what it may import', () => {
    const folders = [...new Set(sourceFiles(join(ROOT, 'server')).map((f) => dirname(f))), join(ROOT, 'client')];
    const missing = [...folders, join(ROOT, 'drizzle'), join(ROOT, 'bench'), join(ROOT, 'test')].filter(
      (dir) => !existsSync(join(dir, 'README.md')) && !dir.includes('generated'),
    );
    expect(missing.map((d) => relative(ROOT, d))).toEqual([]);
  });

  it('the inspector (web/src) imports only its own files, preact and the client package', () => {
    const root = join(ROOT, 'web/src');
    const offenders = sourceFiles(root)
      .concat(
        readdirSync(root, { recursive: true, encoding: 'utf8' })
          .filter((f) => f.endsWith('.tsx'))
          .map((f) => join(root, f)),
      )
      .flatMap((file) =>
        // Import and export statements at the start of a line (JSX text may say "from").
        [
          ...readFileSync(file, 'utf8').matchAll(
            /^(?:import|export)\b[^;'"]*?\bfrom\s*['"]([^'"]+)['"]|^import\s*['"]([^'"]+)['"]/gm,
          ),
        ]
          .map((m) => (m[1] ?? m[2])!)
          .filter((target) => {
            if (!target.startsWith('.')) return !/^preact(\/|$)/.test(target);
            const resolved = relative(ROOT, resolve(dirname(file), target));
            return !resolved.startsWith('web/src/') && !resolved.startsWith('client/src/');
          })
          .map((target) => `${relative(ROOT, file)} -> ${target}`),
      );
    expect(offenders).toEqual([]);
    expect(existsSync(join(ROOT, 'web/README.md'))).toBe(true);
  });

  it('server/storage/sqlite and server/storage/postgres do not import each other', () => {
    const crossing = [...importGraph()].flatMap(([file, targets]) => {
      const [from, to] = ['sqlite', 'postgres'].map((name) => join(ROOT, 'server/storage', name, '/'));
      return targets
        .filter(
          (target) =>
            (file.startsWith(from!) && target.startsWith(to!)) || (file.startsWith(to!) && target.startsWith(from!)),
        )
        .map((target) => `${relative(ROOT, file)} -> ${relative(ROOT, target)}`);
    });
    expect(crossing).toEqual([]);
  });

  it('the adapters (http, mcp, cli) import only types from server/core: functions and values come through services', () => {
    // `import type` / `export type` only: `import { type X }` still loads the module.
    const statement =
      /^(import|export)\b([^;]*?)\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]|\bimport\s*\(\s*['"](\.{1,2}\/[^'"]+)['"]/gms;
    const offenders = ['server/http', 'server/mcp', 'server/cli']
      .flatMap((dir) => sourceFiles(join(ROOT, dir)))
      .flatMap((file) =>
        [...readFileSync(file, 'utf8').matchAll(statement)]
          .filter((m) => {
            const target = resolve(dirname(file), (m[3] ?? m[4])!);
            const typeOnly = m[3] !== undefined && /^\s*type\b/.test(m[2]!);
            return relative(CORE, target).split('/')[0] !== '..' && !typeOnly;
          })
          .map((m) => `${relative(ROOT, file)} -> ${(m[3] ?? m[4])!}`),
      );
    expect(offenders).toEqual([]);
  });

  it('server/core imports no GraphQL, HTTP or CLI code', () => {
    const forbidden =
      /from ['"](graphql|graphql-yoga|graphql-ws|@pothos\/[^'"]+|ws|commander|node:http|(?:\.\.\/)+(cli|http|graphql)\/[^'"]*)['"]/;
    const offenders = sourceFiles(join(ROOT, 'server/core')).filter((file) =>
      forbidden.test(readFileSync(file, 'utf8')),
    );
    expect(offenders).toEqual([]);
  });

  it('the adapters take from server/core only types (`import type`): functions and values come through server/services', () => {
    const adapters = ['server/graphql'];
    const core = join(ROOT, 'server/core');
    const offenders = adapters.flatMap((place) =>
      sourceFiles(join(ROOT, place)).flatMap((file) =>
        // Every import or re-export statement, and every dynamic import, with its target.
        [
          ...readFileSync(file, 'utf8').matchAll(
            /^(import|export)\b([^;'"]*?)\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]|\bimport\s*\(\s*['"](\.{1,2}\/[^'"]+)['"]/gm,
          ),
        ]
          .filter((m) => resolve(dirname(file), (m[3] ?? m[4])!).startsWith(`${core}/`))
          .filter((m) => m[4] !== undefined || !/^\s*type\b/.test(m[2]!))
          .map((m) => `${relative(ROOT, file)}: ${m[0].replace(/\s+/g, ' ')}`),
      ),
    );
    expect(offenders).toEqual([]);
  });

  it('opens every SQLite connection through native-handles.ts (Node 24 aborts on a collected one)', () => {
    const opened = sourceFiles(join(ROOT, 'server')).filter((file) =>
      /new Database\(/.test(readFileSync(file, 'utf8')),
    );
    // The checkpoint thread's script opens its own, and keeps its statements referenced itself.
    expect(opened.map((file) => relative(ROOT, file)).sort()).toEqual([
      'server/storage/sqlite/checkpointer.ts',
      'server/storage/sqlite/native-handles.ts',
    ]);
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
