// The user's profile: standing instructions, preferences, profile facts and pinned memories, the
// memory that opens every context block; pinning any memory, and rewording an instruction.
import type { MemoryRow } from '../core/memory/memories.ts';
import { pinMemory, readProfile, rewordInstruction, type Profile } from '../services/profile.ts';
import { builder } from './builder.ts';
import { readSpace, SPACE_RULE, spaceArgs, writeSpace } from './spaces.ts';
import { MemoryRef } from './refs.ts';

const WHAT_COUNTS =
  'An instruction is what the user tells the assistant to do in every later answer ("always include version numbers when I ask about libraries", ' +
  '"never use semicolons", "from now on answer in French", "whenever I ask about X, show Y", "stop adding emojis"); a one-off request, a question, ' +
  'a habit ("I always forget my keys"), "never mind", what someone else says, or what the assistant says are not. A preference is "I prefer / ' +
  "I'd rather / I like / I love / I hate / I can't stand / my favourite…\"; a profile fact is the user's name, home, work, family, diet and " +
  'allergies, languages and tools. Each is recognised when it is said (no model needed), protected from decay and GC, and superseded by a later ' +
  'one that contradicts it ("actually, stop including versions", "I moved to Lisbon"), the old one kept as history.';

const ProfileRef = builder
  .objectRef<Profile & { space: { userId: string; agentId: string | null } }>('Profile')
  .implement({
    description: `What opens every context block for a user, whatever the query. ${WHAT_COUNTS}`,
    fields: (t) => ({
      userId: t.string({ description: 'The user.', resolve: (p) => p.space.userId }),
      agentId: t.string({
        nullable: true,
        description:
          "The agent whose own memories are included with the user's shared ones; null: the user's whole memory.",
        resolve: (p) => p.space.agentId,
      }),
      instructions: t.field({
        type: [MemoryRef],
        description: 'Standing instructions (kind INSTRUCTION), pinned first, then newest first.',
        resolve: (p) => p.instructions,
      }),
      preferences: t.field({
        type: [MemoryRef],
        description: 'Preferences (kind PREFERENCE), pinned first, then newest first.',
        resolve: (p) => p.preferences,
      }),
      profile: t.field({
        type: [MemoryRef],
        description: 'Profile facts (kind PROFILE): name, home, work, family, diet and allergies, languages, tools.',
        resolve: (p) => p.profile,
      }),
      pinned: t.field({
        type: [MemoryRef],
        description: 'Pinned memories of other kinds (facts, reflections): in every context block too.',
        resolve: (p) => p.pinned,
      }),
      total: t.exposeInt('total', {
        description: 'Active standing and pinned memories in all (each list stops at `limit`).',
      }),
    }),
  });

type Edit = { old: MemoryRow; memory: MemoryRow };

const EditInstructionPayload = builder.objectRef<Edit>('EditInstructionPayload').implement({
  description: 'A reworded instruction: the new wording, and the old one it superseded (archived, kept as history).',
  fields: (t) => ({
    memory: t.field({
      type: MemoryRef,
      description: 'The instruction in its new wording (it `supersedes` the previous one; pinned if that was).',
      resolve: (e) => e.memory,
    }),
    previous: t.field({ type: MemoryRef, description: 'The old wording, now archived.', resolve: (e) => e.old }),
  }),
});

builder.queryFields((t) => ({
  profile: t.field({
    type: ProfileRef,
    description: `The user's standing instructions, preferences, profile facts and pinned memories (active ones). ${SPACE_RULE}`,
    args: {
      ...spaceArgs(t),
      limit: t.arg.int({ description: 'At most this many in each list (1 to 500; 500 by default).' }),
    },
    resolve: async (_root, { limit, ...args }, context) => {
      const space = readSpace(context, args);
      return { ...(await readProfile(context.store, space, limit ?? undefined)), space };
    },
  }),
}));

const idArg = (t: Parameters<Parameters<typeof builder.mutationFields>[0]>[0], description: string) =>
  t.arg.int({ required: true, description });

builder.mutationFields((t) => ({
  pinMemory: t.field({
    type: MemoryRef,
    description: `Pins a memory of any kind: it goes in every context block (its standing sections) whatever the query, and GC and decay leave it alone. NOT_FOUND for an unknown id or another user's memory; BAD_USER_INPUT for an archived one. ${SPACE_RULE}`,
    args: { id: idArg(t, 'The memory to pin.'), ...spaceArgs(t) },
    resolve: (_root, { id, ...args }, context) => pinMemory(context.store, writeSpace(context, args), id, true),
  }),
  unpinMemory: t.field({
    type: MemoryRef,
    description: `Unpins a memory: it competes for the context block like any other again (an instruction, preference or profile fact still opens it). NOT_FOUND for an unknown id or another user's memory. ${SPACE_RULE}`,
    args: { id: idArg(t, 'The memory to unpin.'), ...spaceArgs(t) },
    resolve: (_root, { id, ...args }, context) => pinMemory(context.store, writeSpace(context, args), id, false),
  }),
  editInstruction: t.field({
    type: EditInstructionPayload,
    description: `Rewords a standing instruction. The old wording is archived and superseded by the new one (history kept; a pin carries over). BAD_USER_INPUT when the memory is not an active instruction (correctMemory changes any memory); NOT_FOUND for an unknown id or another user's memory. ${SPACE_RULE}`,
    args: {
      id: idArg(t, 'The instruction to reword.'),
      content: t.arg.string({ required: true, description: 'The new wording (1 to 20 000 characters).' }),
      ...spaceArgs(t),
    },
    resolve: (_root, { id, content, ...args }, context) =>
      rewordInstruction(context.store, writeSpace(context, args), id, content),
  }),
}));
