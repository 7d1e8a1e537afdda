// Output: `--json` prints one JSON document for scripts; otherwise readable text for people,
// with colour only when stdout is a terminal.
import { notFound } from '../services/kernel.ts';
import type { GlobalOptions } from './runtime.ts';

export function emit(options: GlobalOptions, json: unknown, human: () => string) {
  process.stdout.write(options.json ? `${JSON.stringify(json, null, 2)}\n` : `${human()}\n`);
}

const tty = () => process.stdout.isTTY === true && !process.env.NO_COLOR;
const paint = (code: number) => (text: string) => (tty() ? `\x1b[${code}m${text}\x1b[0m` : text);
export const bold = paint(1);
export const dim = paint(2);
export const green = paint(32);
export const red = paint(31);

/** A plain aligned table; cells are cut to `max` characters so rows stay on one line. */
export function table(headers: string[], rows: (string | number | boolean | null | undefined)[][], max = 60): string {
  const cells = rows.map((row) =>
    row.map((cell) => {
      const text = String(cell ?? '').replace(/\s+/g, ' ');
      return text.length > max ? `${text.slice(0, max - 1)}…` : text;
    }),
  );
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((row) => row[i]!.length)));
  const line = (row: string[]) =>
    row
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [bold(line(headers)), dim(line(widths.map((w) => '-'.repeat(w)))), ...cells.map(line)].join('\n');
}

export const fixed = (n: number, digits = 3) => n.toFixed(digits);

/** A count with its noun in the right number: "1 turn", "2 turns", "0 memories". */
export const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

type Connection<N> = {
  totalCount: number;
  pageInfo: { hasNextPage: boolean; endCursor?: string | null };
  edges: { node: N }[];
};

/** A page of a connection as CLI JSON: the items under `key`, the total and where to continue. */
export const page = <N>(connection: Connection<N>, key: string) => ({
  totalCount: connection.totalCount,
  hasNextPage: connection.pageInfo.hasNextPage,
  endCursor: connection.pageInfo.endCursor ?? null,
  [key]: connection.edges.map((edge) => edge.node),
});

/** A nullable lookup result, or the NOT_FOUND error the API gives for ids elsewhere. */
export function found<T>(value: T | null | undefined, what: string, id: string | number): T {
  if (value == null) throw notFound(what, id);
  return value;
}
