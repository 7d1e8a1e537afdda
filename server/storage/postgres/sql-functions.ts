// SQL functions the domain calls under the same name on both backends (docs/architecture.md#store-port), where SQLite and
// Postgres share no spelling of a construct. SQLite's are JavaScript, registered on the
// connection in server/storage/sqlite/open.ts; these are their Postgres twins, created at open time like the
// row-numbering triggers (drizzle-kit's migrations have no notion of functions).
//
//  - `sm_ids(?)`: the integers of a JSON array, as rows of one column `value`
//    (`id in (select value from sm_ids(?))` instead of SQLite's json_each);
//  - `sm_texts(?)`: the strings of a JSON array, the same way;
//  - `sm_normalize(text)`: normalizeText's duplicate key (lower case, words joined by one space).
// Both are plain SQL functions, which the planner inlines into the calling statement.

type Query = (text: string) => Promise<unknown[][]>;

/** Each function by name: its full definition, and the body Postgres keeps for it (to see whether it is current). */
const FUNCTIONS = {
  sm_ids: {
    body: () => ' select e::bigint from jsonb_array_elements_text(list::jsonb) e ',
    create: (body: string) =>
      `create or replace function sm_ids(list text) returns table (value bigint) language sql immutable parallel safe as $$${body}$$`,
  },
  // normalizeText (server/core/text/text.ts) in SQL: NFKC, lower case, apostrophes out, every run of
  // what is not a letter or digit one space. Under ICU's root collation where the server has ICU:
  // it knows the case and the classes of every letter (a server made with --no-locale knows
  // ASCII's only, and so does this function on a server without ICU).
  sm_normalize: {
    body: (icu: boolean) =>
      ` select btrim(regexp_replace(translate(lower(normalize(coalesce(t, ''), nfkc)${icu ? ' collate "und-x-icu"' : ''}), '''’', ''), '[^[:alnum:]]+', ' ', 'g')) `,
    create: (body: string) =>
      `create or replace function sm_normalize(t text) returns text language sql immutable parallel safe as $$${body}$$`,
  },
  sm_texts: {
    body: () => ' select e from jsonb_array_elements_text(list::jsonb) e ',
    create: (body: string) =>
      `create or replace function sm_texts(list text) returns table (value text) language sql immutable parallel safe as $$${body}$$`,
  },
} as const;

/** Creates the functions that are missing or differ; a database that has them all is not written to. */
export async function ensureSqlFunctions(query: Query): Promise<void> {
  const names = Object.keys(FUNCTIONS);
  const rows = await query(
    `select proname, prosrc from pg_proc where proname in (${names.map((name) => `'${name}'`).join(', ')})
     union all select 'icu', collname from pg_collation where collname = 'und-x-icu'`,
  );
  const present = new Map(rows.map(([name, body]) => [name as string, body as string]));
  const icu = present.has('icu');
  for (const [name, { body, create }] of Object.entries(FUNCTIONS)) {
    const text = body(icu);
    if (present.get(name) !== text) await query(create(text));
  }
}
