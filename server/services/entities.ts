// Entities as the adapters read them: one by id or name, lists, the graph around one, and what
// mentions them. Thin: the core's reads as they are.
export {
  entitiesByIds,
  entitiesForMemories,
  entitiesForTurns,
  entityGraph,
  findEntity,
  listEntities,
  memoriesByEntity,
  turnsByEntity,
} from '../core/reads/entity-reads.ts';
export { ENTITY_TYPES } from '../core/entities/types.ts';
