// Output: `--json` prints one JSON document for scripts; otherwise readable text for people.
import type { GlobalOptions } from './runtime.ts';

export function emit(options: GlobalOptions, json: unknown, human: () => string) {
  process.stdout.write(options.json ? `${JSON.stringify(json, null, 2)}\n` : `${human()}\n`);
}

/** A plain aligned table; cells are cut to `max` characters so rows stay on one line. */
export function table(headers: string[], rows: (string | number | null)[][], max = 60): string {
  const cells = rows.map((row) => row.map((cell) => {
    const text = String(cell ?? '').replace(/\s+/g, ' ');
    return text.length > max ? `${text.slice(0, max - 1)}…` : text;
  }));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((row) => row[i]!.length)));
  const line = (row: string[]) => row.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}

export const fixed = (n: number, digits = 3) => n.toFixed(digits);
