// Memory spaces: the `$userId` / `$agentId` a client fills into the operations that declare them.
import { type DocumentNode, Kind } from 'graphql';
import type { Requester } from './generated/sdk.ts';

/**
 * A memory space: whose memory (`userId`) and, optionally, which agent of that user. Operations
 * that take them get these unless a call passes its own (`forUser` makes a client bound to one).
 */
export type Space = { userId?: string; agentId?: string };

const declared = (doc: DocumentNode) => {
  const op = doc.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION);
  return new Set(
    op?.kind === Kind.OPERATION_DEFINITION ? (op.variableDefinitions ?? []).map((v) => v.variable.name.value) : [],
  );
};

/** A requester that fills `$userId` / `$agentId` of the operations declaring them, unless the call gave them. */
export function withSpace(requester: Requester, space: Space): Requester {
  if (space.userId === undefined && space.agentId === undefined) return requester;
  return <R, V>(doc: DocumentNode, variables?: V) => {
    const names = declared(doc);
    const given = (variables ?? {}) as Record<string, unknown>;
    const filled: Record<string, unknown> = { ...given };
    if (space.userId !== undefined && names.has('userId') && given.userId == null) filled.userId = space.userId;
    if (space.agentId !== undefined && names.has('agentId') && given.agentId == null) filled.agentId = space.agentId;
    return requester<R, Record<string, unknown>>(doc, filled);
  };
}
