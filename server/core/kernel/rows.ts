// Raw rows for the statements addTurn runs on every turn. Drizzle's prepared queries rebuild
// their parameters and walk a generic field tree for every row they return; these statements
// select the table's columns in schema order as arrays and decode them the way drizzle does
// (null stays null, otherwise the column's own mapFromDriverValue: JSON for json columns).
import { getTableColumns, type InferSelectModel, type Table } from 'drizzle-orm';

export type RowCodec<T extends Table> = {
  /** Every column, quoted, in schema order: for `select ${columns}` and `returning ${columns}`. */
  columns: string;
  /** The same, qualified by a table name or alias (for joins). */
  columnsOf(table: string): string;
  decode(raw: unknown[]): InferSelectModel<T>;
};

export function rowCodec<T extends Table>(table: T): RowCodec<T> {
  const fields = Object.entries(getTableColumns(table));
  return {
    columns: fields.map(([, column]) => `"${column.name}"`).join(', '),
    columnsOf: (name) => fields.map(([, column]) => `"${name}"."${column.name}"`).join(', '),
    decode(raw) {
      const row: Record<string, unknown> = {};
      for (let i = 0; i < fields.length; i++) {
        const value = raw[i];
        row[fields[i]![0]] = value === null ? null : fields[i]![1].mapFromDriverValue(value);
      }
      return row as InferSelectModel<T>;
    },
  };
}
