// The domain writes one SQL for both backends, in SQLite's spelling of what they share.
// Two things in that spelling read differently on Postgres, and this file rewrites them:
//  - positional `?` parameters become `$1…$n` (`?NNN` becomes `$NNN`);
//  - unquoted mixed-case identifiers (`user_id as userId`) are quoted: SQLite keeps an alias as
//    written, Postgres folds it to lower case, and the domain reads rows by those aliases.
// Quoted strings ('…'), quoted identifiers ("…", and SQLite's `…`, which become "…") and
// comments are copied untouched, so a `?` or a camelCase word inside them stays as it is.

/** Texts seen so far: the domain runs a bounded set of statements, so each is rewritten once. */
const cache = new Map<string, string>();
/** Statements built with inlined values (a `limit ${n}`) could grow the cache without end. */
const CACHE_LIMIT = 5000;

const isWordStart = (c: string) => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_';
const isWordPart = (c: string) => isWordStart(c) || (c >= '0' && c <= '9') || c === '$';
const isDigit = (c: string) => c >= '0' && c <= '9';

/** The end (exclusive) of a quoted run starting at `start`, where a doubled quote is an escaped one. */
function quotedEnd(text: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < text.length) {
    if (text[i] === quote) {
      if (text[i + 1] === quote) i += 2;
      else return i + 1;
    } else i++;
  }
  return text.length;
}

function translate(text: string): string {
  let out = '';
  let next = 0; // the highest parameter number given so far
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === "'" || c === '"') {
      const end = quotedEnd(text, i, c);
      out += text.slice(i, end);
      i = end;
    } else if (c === '`') {
      const end = quotedEnd(text, i, '`');
      out += `"${text
        .slice(i + 1, end - 1)
        .replaceAll('``', '`')
        .replaceAll('"', '""')}"`;
      i = end;
    } else if (c === '-' && text[i + 1] === '-') {
      const end = text.indexOf('\n', i);
      const stop = end < 0 ? text.length : end;
      out += text.slice(i, stop);
      i = stop;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end < 0 ? text.length : end + 2;
      out += text.slice(i, stop);
      i = stop;
    } else if (c === '?') {
      let j = i + 1;
      while (j < text.length && isDigit(text[j]!)) j++;
      // SQLite: `?NNN` is parameter NNN, a bare `?` is one more than the highest so far.
      const n = j > i + 1 ? Number(text.slice(i + 1, j)) : next + 1;
      next = Math.max(next, n);
      out += `$${n}`;
      i = j;
    } else if (isWordStart(c) && !(i > 0 && (isWordPart(text[i - 1]!) || '@:$'.includes(text[i - 1]!)))) {
      let j = i + 1;
      while (j < text.length && isWordPart(text[j]!)) j++;
      const word = text.slice(i, j);
      // Keywords and the schema's names are all one case; a word with both is an alias.
      out += /[a-z]/.test(word) && /[A-Z]/.test(word) ? `"${word}"` : word;
      i = j;
    } else if (isDigit(c)) {
      // A number (1e5, 0xFF) is copied whole, so its letters are not read as a word.
      let j = i + 1;
      while (j < text.length && (isWordPart(text[j]!) || text[j] === '.')) j++;
      out += text.slice(i, j);
      i = j;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/**
 * Drizzle's SQLite builder names an upsert's conflict target with its table
 * (`on conflict ("sessions"."user_id", "sessions"."id")`), which SQLite takes and Postgres
 * refuses: the target is the bare column names.
 */
const unqualifyConflictTarget = (text: string) =>
  text.includes('on conflict (')
    ? text.replace(
        /\bon conflict \(([^)]*)\)/g,
        (_, columns: string) => `on conflict (${columns.replace(/"(?:[^"]|"")+"\.(?="|\w)/g, '')})`,
      )
    : text;

/** `text` in Postgres's spelling: `$n` parameters, mixed-case aliases quoted, bare conflict targets. */
export function toPostgresSql(text: string): string {
  let translated = cache.get(text);
  if (translated === undefined) {
    translated = unqualifyConflictTarget(translate(text));
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(text, translated);
  }
  return translated;
}
