// Committed store changes, fanned out to GraphQL subscriptions through a yoga PubSub: this
// process's own, and those other nodes commit on the same database (Postgres: LISTEN/NOTIFY, see
// server/storage/postgres/notify.ts), which reach the store's listeners the same way and so pass the same
// per-user filters of the subscriptions.
import { hearOtherNodes, onChange } from '../services/changes.ts';
import { setMaxListeners } from 'node:events';
import { createPubSub } from 'graphql-yoga';
import type { ChangeFeed, ConsolidationChange, MemoryChange, TurnChange } from '../graphql/index.ts';
import type { Store } from '../core/kernel/store.ts';

export function createChangeFeed(store: Store): { changes: ChangeFeed; close: () => void; listening: Promise<void> } {
  // One listener per open subscription (every inspector tab holds one): no "possible leak" warning past 10.
  const eventTarget = new EventTarget();
  setMaxListeners(0, eventTarget);
  const changes = createPubSub<{ memory: [MemoryChange]; turn: [TurnChange]; consolidation: [ConsolidationChange] }>({
    eventTarget,
  });
  const stopLocal = onChange(store, (event) => {
    // Other event types (jobs, entities) have no subscription yet.
    if (event.type === 'memory') changes.publish('memory', event);
    else if (event.type === 'turn') changes.publish('turn', event);
    else if (event.type === 'consolidation') changes.publish('consolidation', event);
  });
  // The other nodes' events go to every listener of the store: the worker wakes for their jobs too.
  const others = hearOtherNodes(store);
  return {
    changes,
    // Closing the store ends the hearing's connection too, should this not have finished.
    close: () => {
      stopLocal();
      void others.stop();
    },
    /** Once other nodes' events are heard (at once where there are none). */
    listening: others.ready,
  };
}
