// The running service's parts, shared by the GraphQL API, REST routes, CLI and job handlers:
// the store plus the optional network providers built from its config.
import type { Store } from './core/store.ts';
import { createLlm, type Llm } from './llm/client.ts';

export type Runtime = { store: Store; llm: Llm | null };

export function createRuntime(store: Store, env: NodeJS.ProcessEnv = process.env): Runtime {
  return { store, llm: createLlm(store.config.llm, env) };
}
