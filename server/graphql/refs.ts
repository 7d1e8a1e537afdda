// Refs of the loadable object types, declared apart from their fields so that domain files can
// point at each other without import cycles. Each batches its loads per request (DataLoader).
import { createContextCache, contextCacheSymbol } from '@pothos/core';
import DataLoader from 'dataloader';
import type { RelationRow } from '../core/reads/batch-reads.ts';
import { builder, type Context } from './builder.ts';
import { reachable } from './spaces.ts';
import { memoriesByIds, relationsByMemory } from '../services/memories.ts';
import { entitiesByIds } from '../services/entities.ts';
import { notFound } from '../services/kernel.ts';
import { sessionsByKeys, turnsByIds } from '../services/turns.ts';

/**
 * One result per key, in key order; a missing row is a NOT_FOUND error for that item only, and
 * so is a row of another user than a scoped token's (root fields check spaces; this backs them up).
 */
const inKeyOrder =
  <K, V extends { userId: string }>(what: string, batch: (context: Context, keys: K[]) => Promise<Map<K, V>>) =>
  async (keys: K[], context: Context) => {
    const rows = await batch(context, keys);
    return keys.map((key) => {
      const row = rows.get(key);
      return row && reachable(context.access, row) ? row : notFound(what, key as string | number);
    });
  };

export const MemoryRef = builder.loadableObjectRef('Memory', {
  load: inKeyOrder('memory', (c, ids: number[]) => memoriesByIds(c.store, ids)),
});

export const TurnRef = builder.loadableObjectRef('Turn', {
  load: inKeyOrder('turn', (c, ids: number[]) => turnsByIds(c.store, ids)),
});

/** Keyed by sessionKey(userId, id): session ids are each user's own. */
export const SessionRef = builder.loadableObjectRef('Session', {
  load: inKeyOrder('session', (c, keys: string[]) => sessionsByKeys(c.store, keys)),
});

export const EntityRef = builder.loadableObjectRef('Entity', {
  load: inKeyOrder('entity', (c, ids: number[]) => entitiesByIds(c.store, ids)),
});

/** Relations (supersedes, derived_from) of memories, batched per request like the refs above. */
export const relationLoader = createContextCache(
  (context: Context) =>
    new DataLoader<number, RelationRow[]>(async (ids) => {
      const rows = await relationsByMemory(context.store, ids);
      return ids.map((id) => rows.get(id) ?? []);
    }),
);

/**
 * A subscription keeps one context for its whole life, so its loaders would serve rows cached
 * at the first event. Each event starts a fresh cache scope instead (events of one
 * subscription are executed one after another).
 */
export function startEventScope(context: Context) {
  (context as { [contextCacheSymbol]?: object })[contextCacheSymbol] = {};
}
