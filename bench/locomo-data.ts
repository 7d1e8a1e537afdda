// The LoCoMo reader lives in the product (`sm import --format locomo`); benchmarks use the same one.
export * from '../server/core/export/locomo.ts';
