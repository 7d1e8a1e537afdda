// FTS5 external-content indexes over memories.content and turns.text, kept in sync by triggers.
// Created at open time (idempotently) rather than in a drizzle migration so that a SQLite build
// without FTS5 still opens: search then falls back to LIKE.
//
// Each row also indexes its user as one token (column `space`, so a match never reads another user's rows), and every query ANDs it in:
// a match never reads, ranks or counts other users' rows, so a small user's search costs what
// that user's data costs. The token is the user id in hex between two letters: one token whatever
// the id's punctuation, and untouched by the porter stemmer. The rank gives that column no weight.
import type Database from 'better-sqlite3';

const INDEXES = [
  { table: 'memories', column: 'content', fts: 'memories_fts' },
  { table: 'turns', column: 'text', fts: 'turns_fts' },
] as const;

export function hasFts5(sqlite: Database.Database): boolean {
  const options = sqlite.pragma('compile_options') as { compile_options: string }[];
  return options.some((o) => o.compile_options === 'ENABLE_FTS5');
}

/**
 * Porter stemming on top of unicode61: "painted", "paints" and "painting" meet "paint". On the
 * LoCoMo retrieval benchmark it lifts recall (see bench/locomo.ts); English-only stemming leaves
 * other languages' words as unicode61 tokens.
 */
export const FTS_TOKENIZE = 'porter unicode61 remove_diacritics 2';

/** The `space` token of a user, as the index stores it (SQL) and as a query names it (JS). */
const spaceTokenSql = (userColumn: string) => `'u' || lower(hex(${userColumn})) || 'x'`;

/** The content views the indexes rebuild from; dropped before migrations (a table rebuild must not trip over them). */
export function dropSearchViews(sqlite: Database.Database) {
  for (const { fts } of INDEXES) sqlite.exec(`drop view if exists ${fts}_source`);
}

export function ensureSearchIndexes(sqlite: Database.Database) {
  for (const { table, column, fts } of INDEXES) {
    let exists = sqlite.prepare('select sql from sqlite_master where type = ? and name = ?').get('table', fts) as
      | { sql: string }
      | undefined;
    // An index of another shape (tokenizer, or from before spaces) is dropped and rebuilt (from the content) once.
    if (exists && (!exists.sql.includes(`tokenize='${FTS_TOKENIZE}'`) || !exists.sql.includes('space'))) {
      sqlite.exec(
        `drop table ${fts}; drop trigger if exists ${fts}_ai; drop trigger if exists ${fts}_ad; drop trigger if exists ${fts}_au;`,
      );
      exists = undefined;
    }
    const space = (row: 'new' | 'old') => spaceTokenSql(`${row}.user_id`);
    // The view is rebuilt only when its definition changed: an open that changes nothing writes nothing.
    const source = `select id, ${column}, ${spaceTokenSql('user_id')} as space from ${table}`;
    const view = sqlite
      .prepare('select sql from sqlite_master where type = ? and name = ?')
      .get('view', `${fts}_source`) as { sql: string } | undefined;
    if (view && !view.sql.endsWith(` as ${source}`)) sqlite.exec(`drop view ${fts}_source`);
    sqlite.exec(`
      create view if not exists ${fts}_source as ${source};
      create virtual table if not exists ${fts} using fts5(${column}, space, content='${fts}_source', content_rowid='id', tokenize='${FTS_TOKENIZE}');
      create trigger if not exists ${fts}_ai after insert on ${table} begin
        insert into ${fts}(rowid, ${column}, space) values (new.id, new.${column}, ${space('new')});
      end;
      create trigger if not exists ${fts}_ad after delete on ${table} begin
        insert into ${fts}(${fts}, rowid, ${column}, space) values ('delete', old.id, old.${column}, ${space('old')});
      end;
      create trigger if not exists ${fts}_au after update of ${column} on ${table} begin
        insert into ${fts}(${fts}, rowid, ${column}, space) values ('delete', old.id, old.${column}, ${space('old')});
        insert into ${fts}(rowid, ${column}, space) values (new.id, new.${column}, ${space('new')});
      end;
    `);
    // A database written without FTS5 (or before this index existed) gets its index built once.
    if (!exists) {
      sqlite.exec(`insert into ${fts}(${fts}, rank) values ('rank', 'bm25(1.0, 0.0)')`);
      sqlite.exec(`insert into ${fts}(${fts}) values ('rebuild')`);
    }
  }
}

/**
 * Merges each FTS5 index into a single b-tree segment. Every single-row insert adds a small
 * segment (automerge only bounds how many pile up), and a query reads them all: after many
 * inserts an optimize roughly halves turn query time at 100k turns. It rewrites the whole index
 * (~0.3 s at 100k rows), so it is a nightly maintenance task rather than part of a write. An
 * index that does not exist (no FTS5 in this SQLite build) is skipped. Returns the indexes
 * merged (none without FTS5) and the wall time in milliseconds.
 */
export function optimizeSearchIndexes(sqlite: Database.Database): { indexes: string[]; ms: number } {
  const started = performance.now();
  const indexes: string[] = [];
  if (hasFts5(sqlite)) {
    const present = sqlite.prepare('select 1 from sqlite_master where type = ? and name = ?');
    for (const { fts } of INDEXES) {
      if (!present.get('table', fts)) continue;
      sqlite.exec(`insert into ${fts}(${fts}) values ('optimize')`);
      indexes.push(fts);
    }
  }
  return { indexes, ms: Math.round((performance.now() - started) * 100) / 100 };
}
