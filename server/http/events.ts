// Committed store changes, fanned out to GraphQL subscriptions through a yoga PubSub.
import { setMaxListeners } from 'node:events';
import { createPubSub } from 'graphql-yoga';
import type { ChangeFeed, ConsolidationChange, MemoryChange, TurnChange } from '../../schema/index.ts';
import { onChange, type Store } from '../core/store.ts';

export function createChangeFeed(store: Store): { changes: ChangeFeed; close: () => void } {
  // One listener per open subscription (every inspector tab holds one): no "possible leak" warning past 10.
  const eventTarget = new EventTarget();
  setMaxListeners(0, eventTarget);
  const changes = createPubSub<{ memory: [MemoryChange]; turn: [TurnChange]; consolidation: [ConsolidationChange] }>({ eventTarget });
  const close = onChange(store, (event) => {
    // Other event types (jobs, entities) have no subscription yet.
    if (event.type === 'memory') changes.publish('memory', event);
    else if (event.type === 'turn') changes.publish('turn', event);
    else if (event.type === 'consolidation') changes.publish('consolidation', event);
  });
  return { changes, close };
}
