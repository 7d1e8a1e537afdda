// The SQL the two backends spell differently, grouped by the module that runs it. Each store's
// opener hands its own (server/storage/{sqlite,postgres}/statements.ts) as `store.dialect.statements`,
// so the domain asks for the text instead of branching on the backend (docs/architecture.md#store-port).
// Texts are the same string on every call: the port prepares and caches statements by their text.

export interface DialectStatements {
  /** Appended to a text column so it compares in byte order (SQLite's own; Postgres's collation may skip spaces). */
  readonly byteOrder: string;
  /** A field of a JSON text column, as text: spelled as the expression indexes on `jobs.payload` are. */
  jsonField(column: string, key: string): string;
  /** The LIKE that folds case: SQLite's like folds ASCII; Postgres's ilike what the server's locale knows. */
  readonly likeFoldingCase: string;
  /** Whether a table exists in the current schema (one parameter: its name). */
  readonly tableExists: string;
  /** Whether tables of an earlier release's sqlite-vec (vec0) may exist: only a SQLite file ever had them. */
  readonly legacyVectorTables: boolean;
  /**
   * Whether a write saves statements by combining them (data-modifying CTEs, writes sent with the
   * COMMIT): each statement costs a round trip on a server, and more than a step on PGlite.
   */
  readonly combinesWrites: boolean;
  readonly jobs: {
    /** Is an embedding catch-up job pending? (one parameter: the job type) */
    readonly anyCatchUp: string;
    /**
     * A claim that locks the due rows it picks and skips rows others hold, returning `columns`;
     * null where one writer holds the whole database (SQLite) and a plain claim in write() does.
     */
    readonly claimSkippingLocked: ((columns: string) => string) | null;
  };
  readonly extraction: {
    /** Adds one sample's `counters` (one parameter each) to `path`'s totals in the JSON kept under a meta key. */
    recordStats(path: string, counters: readonly string[]): string;
    /** The join that keeps the text index's subquery the outer loop, and the subject compared without case. */
    readonly fuzzy: { readonly join: string; readonly sameSubject: string };
  };
  readonly search: {
    /** The ids of `rows` as a JSON array text in `order` ('[]' when none). */
    jsonIds(rows: string, order: string): string;
  };
}

/** A statement built from a dialect's statements once per dialect and key, then the same string. */
export function perDialect<K = string>(
  build: (statements: DialectStatements, key: K) => string,
): (statements: DialectStatements, key: K) => string {
  const built = new WeakMap<DialectStatements, Map<K, string>>();
  return (statements, key) => {
    let texts = built.get(statements);
    if (texts === undefined) built.set(statements, (texts = new Map()));
    let text = texts.get(key);
    if (text === undefined) texts.set(key, (text = build(statements, key)));
    return text;
  };
}
