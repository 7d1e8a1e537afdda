// Memories as the adapters read and change them: remember, update, confirm, correct, forget, lists,
// batches by id, explain and GC. Thin: the core's functions take the store and the caller's space
// and validate their own input, so the adapters call them as they are. GraphQL parses its inputs
// with the same schemas (its `validate`) and calls the *Parsed forms, so nothing is parsed twice.
export { relationsByMemory, sourcesByMemory } from '../core/reads/batch-reads.ts';
export { explain } from '../core/memory/explain.ts';
export { contentSchema, memoryIdSchema } from '../core/kernel/validation.ts';
export { isProtected, runGc } from '../core/memory/gc.ts';
export { decisionsByMemory } from '../core/memory/decisions.ts';
export { memoriesByIds, memoryIn, remember, rememberParsed, rememberSchema } from '../core/memory/memories.ts';
export {
  confirmMemory,
  correctMemory,
  correctMemoryParsed,
  updateMemory,
  updateMemoryParsed,
  updateMemorySchema,
} from '../core/memory/memory-edits.ts';
export { listMemories } from '../core/memory/memory-list.ts';
export { forget } from '../core/memory/forget.ts';
