// Memories as the adapters ask for them: save one, change it, list a page, explain it, and GC.
export { explain } from '../core/memory/explain.ts';
export { runGc } from '../core/memory/gc.ts';
export { remember } from '../core/memory/memories.ts';
export { updateMemory } from '../core/memory/memory-edits.ts';
export { listMemories } from '../core/memory/memory-list.ts';
