// SQL functions the domain calls under the same name on both backends (D15), where SQLite and
// Postgres share no spelling of a construct. SQLite's are JavaScript, registered on the
// connection in server/db/open.ts; these are their Postgres twins, created at open time like the
// row-numbering triggers (drizzle-kit's migrations have no notion of functions).
//
//  - `sm_ids(?)`: the integers of a JSON array, as rows of one column `value`
//    (`id in (select value from sm_ids(?))` instead of SQLite's json_each);
//  - `sm_texts(?)`: the strings of a JSON array, the same way.
// Both are plain SQL functions, which the planner inlines into the calling statement.

type Query = (text: string) => Promise<unknown[][]>;

/** Each function by name: its full definition, and the body Postgres keeps for it (to see whether it is current). */
const FUNCTIONS = {
  sm_ids: {
    body: ' select e::bigint from jsonb_array_elements_text(list::jsonb) e ',
    create: (body: string) => `create or replace function sm_ids(list text) returns table (value bigint) language sql immutable parallel safe as $$${body}$$`,
  },
  sm_texts: {
    body: ' select e from jsonb_array_elements_text(list::jsonb) e ',
    create: (body: string) => `create or replace function sm_texts(list text) returns table (value text) language sql immutable parallel safe as $$${body}$$`,
  },
} as const;

/** Creates the functions that are missing or differ; a database that has them all is not written to. */
export async function ensureSqlFunctions(query: Query): Promise<void> {
  const names = Object.keys(FUNCTIONS);
  const rows = await query(`select proname, prosrc from pg_proc where proname in (${names.map((name) => `'${name}'`).join(', ')})`);
  const present = new Map(rows.map(([name, body]) => [name as string, body as string]));
  for (const [name, { body, create }] of Object.entries(FUNCTIONS)) {
    if (present.get(name) !== body) await query(create(body));
  }
}
