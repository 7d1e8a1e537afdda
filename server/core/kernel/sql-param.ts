// A value a statement's `?` takes: apart from store.ts so that space.ts, which store.ts imports for
// its types, can use it without an import cycle.
export type SqlParam = string | number | bigint | null | Uint8Array;
