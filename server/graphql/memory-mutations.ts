// Writes on memories: remember, update, confirm, correct, forget. An argument's `validate` parses
// it with the service's own schema, once: the resolvers hand its output to the *Parsed forms.
import type { MemoryRow } from '../core/memory/memories.ts';
import { builder } from './builder.ts';
import { SPACE_RULE, spaceArgs, writeSpace } from './spaces.ts';
import { MemoryStatus } from './enums.ts';
import { SavedMemory } from './memories.ts';
import { MemoryRef } from './refs.ts';
import {
  confirmMemory,
  contentSchema,
  correctMemoryParsed,
  forget,
  memoryIdSchema,
  rememberParsed,
  rememberSchema,
  updateMemoryParsed,
  updateMemorySchema,
} from '../services/memories.ts';

const RememberInput = builder.inputType('RememberInput', {
  description: 'A fact to remember explicitly. It merges into an identical active memory instead of duplicating it.',
  fields: (t) => ({
    content: t.string({ required: true, description: 'The fact, as a sentence.' }),
    importance: t.float({ required: true, defaultValue: 0, description: 'Importance from 0 to 1; boosts the score.' }),
    tags: t.stringList({ required: true, defaultValue: [], description: 'Free tags (up to 32).' }),
  }),
  validate: rememberSchema,
});

const UpdateMemoryInput = builder.inputType('UpdateMemoryInput', {
  description: 'A partial update: give at least one field. Omitted fields stay as they are.',
  fields: (t) => ({
    status: t.field({ type: MemoryStatus, description: 'ARCHIVED hides it (kept for history); ACTIVE restores it.' }),
    content: t.string({ description: 'New content.' }),
    tags: t.stringList({ description: 'New tags (replace the old ones).' }),
    importance: t.float({ description: 'New importance from 0 to 1.' }),
  }),
  validate: updateMemorySchema,
});

const withoutNulls = <T extends object>(value: T) =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v != null)) as { [K in keyof T]?: NonNullable<T[K]> };

type ForgetResult = { memoryIds: number[]; turnIds: number[] };

const ForgetPayload = builder.objectRef<ForgetResult>('ForgetPayload').implement({
  description: 'What `forget` hard-deleted. Deleted rows are gone (text, search index, vectors, links).',
  fields: (t) => ({
    deleted: t.int({ description: 'How many memories were deleted.', resolve: (r) => r.memoryIds.length }),
    memoryIds: t.exposeIntList('memoryIds', { description: 'Ids of the deleted memories.' }),
    turnIds: t.exposeIntList('turnIds', {
      description: 'Ids of the deleted turns (forgetting by text also erases it from history).',
    }),
  }),
});

type Correction = { previous: MemoryRow; memory: MemoryRow };

const CorrectMemoryPayload = builder.objectRef<Correction>('CorrectMemoryPayload').implement({
  description: 'A correction: the new memory, and the old one it superseded.',
  fields: (t) => ({
    memory: t.field({
      type: MemoryRef,
      description: 'The replacement (it `supersedes` the previous one).',
      resolve: (c) => c.memory,
    }),
    previous: t.field({
      type: MemoryRef,
      description: 'The corrected memory, now archived.',
      resolve: (c) => c.previous,
    }),
  }),
});

const idArg = (t: Parameters<Parameters<typeof builder.mutationFields>[0]>[0], description: string) =>
  t.arg.int({ required: true, description, validate: memoryIdSchema });

builder.mutationFields((t) => ({
  remember: t.field({
    type: SavedMemory,
    description: `Saves a fact in the user's mid-term layer (or reinforces the identical active one). ${SPACE_RULE}`,
    args: { input: t.arg({ type: RememberInput, required: true, description: 'The fact.' }), ...spaceArgs(t) },
    resolve: (_root, { input, ...args }, context) => rememberParsed(context.store, writeSpace(context, args), input),
  }),
  updateMemory: t.field({
    type: MemoryRef,
    description:
      'Changes a memory by hand: content, tags, importance, or status (archive / restore). NOT_FOUND for an unknown id.',
    args: {
      id: idArg(t, 'The memory to update.'),
      input: t.arg({ type: UpdateMemoryInput, required: true, description: 'The changes.' }),
      ...spaceArgs(t),
    },
    // The `validate` refuses a null field; withoutNulls only narrows the GraphQL type to the patch's.
    resolve: (_root, { id, input, ...args }, context) =>
      updateMemoryParsed(context.store, writeSpace(context, args), id, withoutNulls(input)),
  }),
  confirmMemory: t.field({
    type: MemoryRef,
    description:
      'Confirms a memory: full confidence, never decays, exempt from GC cleanup. NOT_FOUND for an unknown id.',
    args: { id: idArg(t, 'The memory to confirm.'), ...spaceArgs(t) },
    resolve: (_root, { id, ...args }, context) => confirmMemory(context.store, writeSpace(context, args), id),
  }),
  correctMemory: t.field({
    type: CorrectMemoryPayload,
    description:
      "Replaces a memory's content: the old memory is archived and superseded by a new one that keeps its kind, layer, tags and importance.",
    args: {
      id: idArg(t, 'The memory to correct.'),
      content: t.arg.string({ required: true, description: 'The corrected fact.', validate: contentSchema }),
      ...spaceArgs(t),
    },
    resolve: async (_root, { id, content, ...args }, context) => {
      const { old, memory } = await correctMemoryParsed(context.store, writeSpace(context, args), id, content);
      return { previous: old, memory };
    },
  }),
  forget: t.field({
    type: ForgetPayload,
    description:
      'Hard-deletes (privacy), in the space only: by `id`, that memory; by `text`, every memory and every turn containing the text ' +
      '(case-insensitive, whole words). Give exactly one of them.',
    args: {
      id: t.arg.int({ description: 'The memory to delete.' }),
      text: t.arg.string({ description: 'Text whose every occurrence (memories and turns) is deleted.' }),
      ...spaceArgs(t),
    },
    // Checked by forget itself (forgetSchema): a field-level schema would strip userId and agentId.
    resolve: (_root, { id, text, ...args }, context) => forget(context.store, writeSpace(context, args), { id, text }),
  }),
}));
