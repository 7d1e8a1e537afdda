// Cursor helpers for Relay connections. Cursors are opaque to clients (base64url of a tagged
// position); lists sorted by score page by offset, a session's turns page by (at, id) keyset.
import { builder } from './builder.ts';
import type { TurnPosition } from '../core/reads/batch-reads.ts';
import { badInput } from '../services/kernel.ts';

export const MAX_PAGE = 100;

const encode = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

function decode(cursor: string, tag: string, arg: string): string[] {
  const parts = Buffer.from(cursor, 'base64url').toString('utf8').split(':');
  if (parts[0] !== tag || parts.slice(1).some((p) => !/^\d+$/.test(p)))
    throw badInput(`${arg}: not a cursor of this list`);
  return parts.slice(1);
}

export type Page<T> = {
  edges: { cursor: string; node: T }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  totalCount: number;
};

function page<T>(
  rows: T[],
  cursorOf: (row: T, index: number) => string,
  more: { next: boolean; previous: boolean },
  total: number,
): Page<T> {
  const edges = rows.map((node, i) => ({ cursor: cursorOf(node, i), node }));
  return {
    edges,
    pageInfo: {
      hasNextPage: more.next,
      hasPreviousPage: more.previous,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
    totalCount: total,
  };
}

/** The position an offset cursor (from `offsetPage`) points at. */
export const decodeOffsetCursor = (cursor: string, arg = 'after') => Number(decode(cursor, 'o', arg)[0]);

/** Forward paging over a list read with limit/offset (and its total). */
export async function offsetPage<T>(
  args: { first?: number | null; after?: string | null },
  read: (window: {
    limit: number;
    offset: number;
  }) => Promise<{ rows: T[]; total: number }> | { rows: T[]; total: number },
): Promise<Page<T>> {
  const offset = args.after ? decodeOffsetCursor(args.after) + 1 : 0;
  const limit = args.first ?? 20;
  // limit 0 is a valid Relay request (count only); the core lists take at least 1.
  const { rows, total } = await read({ limit: Math.max(limit, 1), offset });
  const shown = rows.slice(0, limit);
  return page(
    shown,
    (_, i) => encode(`o:${offset + i}`),
    { next: offset + shown.length < total, previous: offset > 0 },
    total,
  );
}

export const turnCursor = (turn: TurnPosition) => encode(`t:${turn.at}:${turn.id}`);

export function decodeTurnCursor(cursor: string, arg = 'before'): TurnPosition {
  const [at, id] = decode(cursor, 't', arg).map(Number);
  return { at: at!, id: id! };
}

/** A backward page of turns (oldest first), as read by keyset. */
export function turnPage<T extends TurnPosition>(
  rows: T[],
  hasPrevious: boolean,
  total: number,
  hasNext: boolean,
): Page<T> {
  return page(rows, (row) => turnCursor(row), { next: hasNext, previous: hasPrevious }, total);
}

type ConnectionOptions<Ref> = {
  type: Ref;
  name: string;
  description: string;
  /** What `totalCount` counts. */
  total: string;
  /** What an edge is. */
  edge: string;
};

/** A Relay connection with `totalCount` across all pages (every list of the API has one). */
export function countedConnection<Ref extends Parameters<typeof builder.connectionObject>[0]['type']>(
  options: ConnectionOptions<Ref>,
) {
  return builder.connectionObject(
    {
      type: options.type,
      name: options.name,
      description: options.description,
      fields: (t) => ({
        totalCount: t.int({ description: options.total, resolve: (c) => (c as unknown as Page<unknown>).totalCount }),
      }),
    },
    { name: options.name.replace(/Connection$/, 'Edge'), description: options.edge },
  );
}
