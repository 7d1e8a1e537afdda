// The throwaway Postgres server lives in scripts/ so the benchmarks can start one too.
export * from '../../scripts/postgres-server.ts';
