// The documentation is what users follow: its CLI reference and config table must match the code,
// and every link in it (and every docs/ anchor a code comment points at) must lead somewhere.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../server/core/kernel/config.ts';
import { CLI_DOC, withReference } from '../../scripts/cli-docs.ts';

const ROOT = join(import.meta.dirname, '../..');
const read = (path: string) => readFileSync(path, 'utf8');
/** README.md, docs/*.md and every folder's README.md. */
const DOCS = readdirSync(ROOT, { withFileTypes: true, recursive: true })
  .filter((e) => e.isFile() && e.name.endsWith('.md') && !/node_modules|dist|\.git/.test(e.parentPath))
  .map((e) => join(e.parentPath, e.name))
  .filter((file) => file.endsWith('README.md') || relative(ROOT, file).startsWith('docs/'));

/** The anchors a page offers: GitHub's slug of each heading, and explicit `<a id="…">`. */
function anchors(markdown: string): Set<string> {
  const found = new Set<string>();
  const seen = new Map<string, number>();
  const text = markdown.replace(/```[\s\S]*?```/g, '');
  for (const [, heading] of text.matchAll(/^#{1,6}\s+(.+)$/gm)) {
    const slug = heading!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    found.add(n === 0 ? slug : `${slug}-${n}`);
  }
  for (const [, id] of text.matchAll(/<a id="([^"]+)"><\/a>/g)) found.add(id!);
  return found;
}

/** Relative link targets of a page: markdown links and images, and HTML src/href, outside code. */
function links(markdown: string): string[] {
  const text = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  const targets = [...text.matchAll(/\]\(([^)\s]+)\)/g), ...text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
  return targets.filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t));
}

/** A problem with one link, or null when it resolves (file, folder, and anchor in a markdown file). */
function brokenLink(from: string, target: string): string | null {
  const [path, anchor] = target.split('#') as [string, string | undefined];
  const file = path === '' ? from : resolve(dirname(from), decodeURI(path));
  const where = `${relative(ROOT, from)}: ${target}`;
  if (!existsSync(file)) return `${where} (no such file)`;
  if (anchor && statSync(file).isFile() && file.endsWith('.md') && !anchors(read(file)).has(anchor))
    return `${where} (no such anchor)`;
  return null;
}

const SOURCE_DIRS = [
  'server',
  'schema',
  'bench',
  'test',
  'scripts',
  'web/src',
  'client/src',
  'client/operations',
  'drizzle',
  'python',
  'ai-sdk/src',
];

/** Source and documentation text under a folder (generated code aside: it follows its sources). */
function textFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter(
      (e) =>
        e.isFile() &&
        /\.(ts|tsx|mjs|js|md|graphql|py)$/.test(e.name) &&
        !/node_modules|dist|generated|\.client/.test(e.parentPath),
    )
    .map((e) => join(e.parentPath, e.name));
}

describe('docs', () => {
  it('docs/cli.md has the CLI reference of the current commands (run npm run docs:cli after changing one)', () => {
    const doc = read(CLI_DOC);
    expect(withReference(doc)).toBe(doc);
  });

  it('docs/configuration.md documents every config key with its default', () => {
    const lines = read(join(ROOT, 'docs/configuration.md')).split('\n');
    const missing: string[] = [];
    for (const [section, values] of Object.entries(resolveConfig([]))) {
      for (const [key, value] of Object.entries(values as Record<string, unknown>)) {
        const row = lines.find((line) => line.startsWith(`| \`${section}.${key}\` |`));
        const shown = typeof value === 'string' ? (value === '' ? '""' : value) : JSON.stringify(value);
        if (!row?.replace(/`/g, '').includes(shown)) missing.push(`${section}.${key} (default ${shown})`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('every relative link in README.md, docs/*.md and the folder READMEs resolves, anchors included', () => {
    const broken = DOCS.flatMap((file) => links(read(file)).map((target) => brokenLink(file, target))).filter(Boolean);
    expect(broken).toEqual([]);
  });

  it('the README stays a short front page', () => {
    expect(read(join(ROOT, 'README.md')).split('\n').length).toBeLessThanOrEqual(130);
  });

  it('every docs/ page a code comment points at exists, with its anchor', () => {
    const cited = SOURCE_DIRS.flatMap((dir) => textFiles(join(ROOT, dir))).flatMap((file) =>
      [...read(file).matchAll(/docs\/([\w-]+\.md)(?:#([\w-]+))?/g)].map((m) => ({ file, page: m[1]!, anchor: m[2] })),
    );
    const broken = cited
      .map(
        ({ file, page, anchor }) =>
          brokenLink(join(ROOT, 'README.md'), `docs/${page}${anchor ? `#${anchor}` : ''}`) &&
          `${relative(ROOT, file)}: docs/${page}${anchor ? `#${anchor}` : ''}`,
      )
      .filter(Boolean);
    expect(broken).toEqual([]);
  });

  it('no source or folder README cites decision labels or documents outside the repository', () => {
    const outside =
      /\bD\d{1,2}\b(?![:\d])|\bseed (?:00\d|'s)|\bseeds\/|\bissue\s+#?\d+|\bissue's\b|\bthe issue\b|STACK\.md|DESIGN\.md|\.\.\/shared\//i;
    const files = SOURCE_DIRS.flatMap((dir) => textFiles(join(ROOT, dir)));
    const cited = files.flatMap((file) =>
      read(file)
        .split('\n')
        .map((line, i) => [line, i] as const)
        .filter(([line]) => outside.test(line))
        .map(([line, i]) => `${relative(ROOT, file)}:${i + 1}: ${line.trim()}`),
    );
    expect(cited, 'say the why in the comment, or point at a page of docs/').toEqual([]);
  });
});
