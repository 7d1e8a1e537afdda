// What SQLite says its own way (the domain's `store.dialect.statements`, core/kernel/dialect-statements.ts).
import type { DialectStatements } from '../../core/kernel/dialect-statements.ts';

export const SQLITE_STATEMENTS: DialectStatements = {
  byteOrder: '',
  jsonField: (column, key) => `${column} ->> '$.${key}'`,
  likeFoldingCase: 'like',
  tableExists: 'select 1 from sqlite_master where name = ?',
  legacyVectorTables: true,
  // One local file: a statement is a call, not a round trip.
  combinesWrites: false,
  jobs: {
    anyCatchUp: "select id from jobs where status = 'pending' and type = ? and payload ->> '$.catchUp' limit 1",
    claimSkippingLocked: null,
  },
  extraction: {
    recordStats(path, counters) {
      const fresh = counters.map((c) => `'${c}', ?`).join(', ');
      const grown = counters
        .map((c) => `'$.${path}.${c}', coalesce(json_extract(value, '$.${path}.${c}'), 0) + ?`)
        .join(', ');
      return `insert into meta (key, value) values (?, json_object('${path}', json_object(${fresh}, 'lastError', ?)))
       on conflict (key) do update set value = json_set(value, ${grown},
         '$.${path}.lastError', coalesce(?, json_extract(value, '$.${path}.lastError')))`;
    },
    // CROSS JOIN keeps the FTS5 subquery the outer loop.
    fuzzy: { join: 'cross join', sameSubject: 'm.subject = ? collate nocase' },
  },
  search: {
    // json_group_array keeps the order of the subquery it reads.
    jsonIds: (rows, _order) => `(select json_group_array(id) from (${rows}) x)`,
  },
};
