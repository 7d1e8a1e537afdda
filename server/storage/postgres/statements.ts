// What Postgres says its own way (the domain's `store.dialect.statements`, core/kernel/dialect-statements.ts).
import type { DialectStatements } from '../../core/kernel/dialect-statements.ts';

export const POSTGRES_STATEMENTS: DialectStatements = {
  // Byte order whatever the database's collation, which may skip spaces and punctuation (en_US does).
  byteOrder: ' collate "C"',
  // JSON columns are text here (drizzle/pg-schema.ts), read as jsonb.
  jsonField: (column, key) => `(${column}::jsonb ->> '${key}')`,
  likeFoldingCase: 'ilike',
  tableExists: 'select 1 from pg_tables where tablename = ? and schemaname = current_schema()',
  legacyVectorTables: false,
  combinesWrites: true,
  jobs: {
    anyCatchUp:
      "select id from jobs where status = 'pending' and type = ? and payload::jsonb ->> 'catchUp' = 'true' limit 1",
    claimSkippingLocked: (columns) => claimSkippingLocked(columns),
  },
  extraction: {
    recordStats(path, counters) {
      const fresh = counters.map((c) => `'${c}', cast(? as float8)`).join(', ');
      const grown = counters
        .map((c) => `'${c}', coalesce((meta.value::jsonb #>> '{${path},${c}}')::float8, 0) + cast(? as float8)`)
        .join(', ');
      return `insert into meta (key, value) values (?, jsonb_build_object('${path}', jsonb_build_object(${fresh}, 'lastError', cast(? as text)))::text)
       on conflict (key) do update set value = (meta.value::jsonb || jsonb_build_object('${path}',
         coalesce(meta.value::jsonb -> '${path}', '{}'::jsonb) || jsonb_build_object(${grown},
           'lastError', coalesce(to_jsonb(cast(? as text)), meta.value::jsonb #> '{${path},lastError}', 'null'::jsonb))))::text`;
    },
    // No CROSS JOIN … ON (and the planner joins well); no nocase collation: lower() folds what the locale knows.
    fuzzy: { join: 'join', sameSubject: 'lower(m.subject) = lower(?)' },
  },
  search: {
    // json_agg of no rows is null.
    jsonIds: (rows, order) => `(select coalesce(json_agg(x.id order by ${order}), '[]')::text from (${rows}) x)`,
  },
};

const claims = new Map<string, string>();

/**
 * One statement that locks the due rows it picks and skips the rows another node's claim (or any
 * open transaction) has locked, so nodes claiming at once get different jobs and none waits for
 * another. Lists go in as JSON arrays so the text is one.
 */
function claimSkippingLocked(columns: string): string {
  let text = claims.get(columns);
  if (text === undefined) {
    text = `update jobs set status = 'running', attempts = attempts + 1, locked_until = ?, locked_by = ?, updated_at = ?
  where id in (
    select id from jobs
    where ((status = 'pending' and run_at <= ?) or (status = 'running' and locked_until <= ?))
      and (cast(? as text) is null or type in (select value from sm_texts(?)))
      and (cast(? as text) is null or id in (select value from sm_ids(?)))
      and (? = 0 or attempts = 0)
    order by run_at, id
    limit ?
    for update skip locked)
  returning ${columns}`;
    claims.set(columns, text);
  }
  return text;
}
