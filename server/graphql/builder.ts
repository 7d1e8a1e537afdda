// The Pothos builder: plugins, nullability and the descriptions of the Relay-generated types.
// Configuration only: every type lives in its domain file and index.ts assembles the schema.
import SchemaBuilder from '@pothos/core';
import DataloaderPlugin from '@pothos/plugin-dataloader';
import RelayPlugin from '@pothos/plugin-relay';
import ValidationPlugin from '@pothos/plugin-validation';
import type { PubSub } from 'graphql-yoga';
import type { ChangeEvent, Store } from '../core/kernel/store.ts';
import type { Access } from '../core/users/tokens.ts';
import type { Runtime } from '../services/runtime.ts';
import { validationFailure } from './errors.ts';

export type MemoryChange = Extract<ChangeEvent, { type: 'memory' }>;
export type TurnChange = Extract<ChangeEvent, { type: 'turn' }>;
export type ConsolidationChange = Extract<ChangeEvent, { type: 'consolidation' }>;

/** Committed changes, fanned out to subscriptions. Fed by the host from `onChange(store)`. */
export type ChangeFeed = PubSub<{ memory: [MemoryChange]; turn: [TurnChange]; consolidation: [ConsolidationChange] }>;

/** Per operation: the store, the runtime around it (LLM provider), the change feed and what the token may reach. */
export type Context = { store: Store; runtime: Runtime; changes: ChangeFeed; access: Access };

export const builder = new SchemaBuilder<{
  Context: Context;
  DefaultFieldNullability: false;
  DefaultEdgesNullability: { list: false; items: false };
  DefaultNodeNullability: false;
  // Timestamps are epoch milliseconds inside, ISO-8601 strings on the wire.
  Scalars: {
    DateTime: { Input: number; Output: number };
    JSON: { Input: unknown; Output: unknown };
  };
}>({
  plugins: [RelayPlugin, DataloaderPlugin, ValidationPlugin],
  defaultFieldNullability: false,
  validation: { validationError: (failure) => validationFailure(failure.issues) },
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
    // Ids are plain integers (or strings for sessions); there are no global Node ids.
    nodeQueryOptions: false,
    nodesQueryOptions: false,
    edgesFieldOptions: {
      nullable: { list: false, items: false },
      description: 'The items of this page, each with its cursor.',
    },
    nodeFieldOptions: { nullable: false, description: 'The item.' },
    cursorFieldOptions: {
      description: 'Opaque cursor of this item: pass it as `after` (or `before`) to continue from here.',
    },
    pageInfoFieldOptions: { description: 'Where this page sits in the whole list.' },
    pageInfoTypeOptions: { description: 'Pagination state of a connection (Relay cursor connections).' },
    hasNextPageFieldOptions: { description: 'True when more items follow this page.' },
    hasPreviousPageFieldOptions: { description: 'True when items precede this page.' },
    startCursorFieldOptions: { description: 'Cursor of the first item of this page; null when the page is empty.' },
    endCursorFieldOptions: { description: 'Cursor of the last item of this page; null when the page is empty.' },
    firstArgOptions: { description: 'Page size, counting forward from `after`.' },
    afterArgOptions: { description: 'Cursor to continue after (an `endCursor` or edge `cursor`).' },
    lastArgOptions: { description: 'Page size, counting backward from `before`.' },
    beforeArgOptions: { description: 'Cursor to continue before (a `startCursor` or edge `cursor`).' },
  },
});
