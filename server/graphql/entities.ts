// Entities: the people, places and things that memories and turns mention. One entity by id or
// name, a searchable list, and the memories and turns that mention each (batched per request).
import { z } from 'zod';
import type { CoMention, EntityGraph as EntityGraphShape, EntityRow } from '../core/reads/entity-reads.ts';
import type { EntityType } from '../core/entities/types.ts';
import { builder } from './builder.ts';
import { nestedSpace, readSpace, spaceArgs } from './spaces.ts';

import { MemoryStatus } from './enums.ts';
import { MemoryConnection } from './memories.ts';
import { countedConnection, decodeOffsetCursor, MAX_PAGE, offsetPage, type Page } from './pagination.ts';
import { EntityRef, TurnRef } from './refs.ts';
import {
  ENTITY_TYPES,
  entityGraph,
  findEntity,
  listEntities,
  memoriesByEntity,
  turnsByEntity,
} from '../services/entities.ts';
import { groupBy, notFound } from '../services/kernel.ts';

// Types stay strings on the wire (imports may carry others); the core checks the ones given as input.
const asType = (type: string | null | undefined) => type as EntityType | null | undefined;
const TYPES = ENTITY_TYPES.map((type) => `\`${type}\``).join(', ');
const pageSize = z.number().int().min(0).max(MAX_PAGE);

export const EntityTurnConnection = countedConnection({
  type: TurnRef,
  name: 'EntityTurnConnection',
  description: 'A page of the turns that mention an entity, most recent first.',
  total: 'How many turns mention the entity, across all pages.',
  edge: 'A turn that mentions an entity, with its cursor.',
});

/** A page read for a whole set of entities (one read per user): the (shared) `after` cursor becomes one offset. */
async function pagesFor<T>(
  entities: EntityRow[],
  args: { first: number; after?: string | null },
  read: (
    ids: number[],
    window: { limit: number; offset: number },
    userId: string,
  ) => Promise<Map<number, { rows: T[]; total: number }>>,
): Promise<Page<T>[]> {
  const offset = args.after ? decodeOffsetCursor(args.after) + 1 : 0;
  // first: 0 asks for the counts only; the core reads take at least one row.
  const byEntity = new Map<number, { rows: T[]; total: number }>();
  for (const [userId, group] of groupBy(entities, (e) => e.userId)) {
    for (const [id, page] of await read(
      group.map((e) => e.id),
      { limit: Math.max(args.first, 1), offset },
      userId,
    ))
      byEntity.set(id, page);
  }
  // Pages cut from the rows read above: no query runs here.
  return Promise.all(
    entities.map((entity) =>
      offsetPage(args, ({ limit }) => {
        const page = byEntity.get(entity.id) ?? { rows: [], total: 0 };
        return { rows: page.rows.slice(0, limit), total: page.total };
      }),
    ),
  );
}

EntityRef.implement({
  description:
    'A named entity (a person, place, organisation, thing...) of one user, with its aliases and what mentions it.',
  fields: (t) => ({
    userId: t.exposeString('userId', {
      description: 'The user whose registry it is in (Alice of one user is not Alice of another).',
    }),
    id: t.exposeInt('id', { description: 'Stable integer id.' }),
    name: t.exposeString('name', { description: 'Its canonical name.' }),
    type: t.exposeString('type', { description: `Its type: one of ${TYPES}.` }),
    aliases: t.exposeStringList('aliases', { description: 'Other names it goes by.' }),
    summary: t.exposeString('summary', { nullable: true, description: 'A short description, once enriched.' }),
    mentionCount: t.exposeInt('mentionCount', { description: 'How many memories and turns mention it.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was first seen.' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When it last changed.' }),
    memories: t.loadable({
      type: MemoryConnection,
      description: 'The memories that mention it, most recent first (event time), a page at a time.',
      // byPath: every entity at this path shares the arguments, so one statement serves them all.
      byPath: true,
      args: {
        first: t.arg.int({
          required: true,
          defaultValue: 20,
          description: `Page size (0 to ${MAX_PAGE}).`,
          validate: pageSize,
        }),
        after: t.arg.string({ description: 'Cursor to continue after (`pageInfo.endCursor`).' }),
        status: t.arg({ type: MemoryStatus, description: 'Only memories with this status (default ACTIVE).' }),
      },
      load: async (entities: EntityRow[], context, args) =>
        pagesFor(entities, args, (ids, window, userId) =>
          memoriesByEntity(context.store, nestedSpace(context, userId), ids, {
            ...window,
            status: args.status ?? 'active',
          }),
        ),
      resolve: (entity) => entity,
    }),
    turns: t.loadable({
      type: EntityTurnConnection,
      description: 'The turns that mention it, most recent first, a page at a time.',
      byPath: true,
      args: {
        first: t.arg.int({
          required: true,
          defaultValue: 20,
          description: `Page size (0 to ${MAX_PAGE}).`,
          validate: pageSize,
        }),
        after: t.arg.string({ description: 'Cursor to continue after (`pageInfo.endCursor`).' }),
      },
      load: async (entities: EntityRow[], context, args) =>
        pagesFor(entities, args, (ids, window, userId) =>
          turnsByEntity(context.store, nestedSpace(context, userId), ids, window),
        ),
      resolve: (entity) => entity,
    }),
  }),
});

const EntityConnection = countedConnection({
  type: EntityRef,
  name: 'EntityConnection',
  description: 'A page of entities, most mentioned first.',
  total: 'How many entities match the filters, across all pages.',
  edge: 'An entity in a page, with its cursor.',
});

const CoMentionRef = builder.objectRef<CoMention>('CoMention').implement({
  description: 'Two entities mentioned together (in the same active memory or turn), and how often.',
  fields: (t) => ({
    sourceId: t.exposeInt('sourceId', { description: 'One entity (the smaller id).' }),
    targetId: t.exposeInt('targetId', { description: 'The other entity.' }),
    memories: t.exposeInt('memories', { description: 'Active memories that mention both.' }),
    turns: t.exposeInt('turns', { description: 'Turns that mention both.' }),
  }),
});

const EntityGraphRef = builder.objectRef<EntityGraphShape>('EntityGraph').implement({
  description: 'Entities and their co-mentions: a link joins two entities mentioned in the same active memory or turn.',
  fields: (t) => ({
    nodes: t.field({
      type: [EntityRef],
      description: 'The entities (with `around`, that entity first).',
      resolve: (g) => g.nodes,
    }),
    links: t.field({
      type: [CoMentionRef],
      description: 'Co-mentions among the nodes, most frequent first.',
      resolve: (g) => g.links,
    }),
  }),
});

builder.queryFields((t) => ({
  entityGraph: t.field({
    type: EntityGraphRef,
    description:
      'The co-mention graph of the space: the `first` most mentioned entities and the links among them, or (with `around`) ' +
      'one entity and the `first` entities most often mentioned with it. Empty when `around` names no entity of the space.',
    args: {
      first: t.arg.int({
        required: true,
        defaultValue: 30,
        description: 'How many entities (with `around`: how many besides it), 1 to 200.',
        validate: z.number().int().min(1).max(200),
      }),
      around: t.arg.int({ description: 'An entity id: its neighbourhood instead of the most mentioned entities.' }),
      ...spaceArgs(t),
    },
    resolve: (_root, args, context) =>
      entityGraph(context.store, readSpace(context, args), { first: args.first, around: args.around }),
  }),
  entity: t.field({
    type: EntityRef,
    description:
      'One entity, by `id` or by `name` (give exactly one). A name is matched as a person would say it: case and ' +
      'possessives do not count, aliases work, and so does a first name only one person has; when several entities ' +
      'share the name the most mentioned wins unless `type` says which. NOT_FOUND when none matches.',
    args: {
      id: t.arg.int({ description: 'The entity id.' }),
      name: t.arg.string({ description: 'Its name or one of its aliases.' }),
      type: t.arg.string({ description: `With \`name\`: only an entity of this type (${TYPES}).` }),
      ...spaceArgs(t),
    },
    resolve: async (_root, args, context) => {
      const entity = await findEntity(context.store, readSpace(context, args), {
        id: args.id,
        name: args.name,
        type: asType(args.type),
      });
      if (!entity) throw notFound('entity', args.id ?? args.name ?? '');
      return entity;
    },
  }),
  entities: t.field({
    type: EntityConnection,
    description:
      'Entities, most mentioned first, a page at a time; `q` matches inside names and aliases (case-insensitive).',
    args: {
      q: t.arg.string({ description: 'Text to find inside names and aliases.' }),
      type: t.arg.string({ description: `Only entities of this type (${TYPES}).` }),
      first: t.arg.int({
        required: true,
        defaultValue: 20,
        description: `Page size (0 to ${MAX_PAGE}).`,
        validate: pageSize,
      }),
      after: t.arg.string({ description: 'Cursor to continue after (`pageInfo.endCursor`).' }),
      ...spaceArgs(t),
    },
    resolve: (_root, args, context) =>
      offsetPage(args, (window) =>
        listEntities(context.store, readSpace(context, args), { q: args.q, type: asType(args.type), ...window }),
      ),
  }),
}));
