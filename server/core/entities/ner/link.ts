// Entity linking for turns and memories: the fast pass inside addTurn's transaction, and the
// accurate pass (durable job after the commit, nightly enrichment) that stamps enriched_at.
import { and, eq, inArray, isNull } from 'drizzle-orm';
import { memories, memorySources, turns } from '../../../../drizzle/schema.ts';
import { entitiesOfTurn, linkEntities, type EntityRow, type Mention } from '../entities.ts';
import { spaceOfRow, type Space } from '../../kernel/space.ts';
import { write, type Store } from '../../kernel/store.ts';
import { nerCheapMode, queueAccurateNer } from './deferral.ts';
import { NameIndex } from './known-entities.ts';
import {
  accurateNerAvailability,
  accurateProviders,
  extractEntitiesMany,
  extractSync,
  fastProviders,
  mergeBySpan,
  type NerExtras,
  type NerRun,
} from './pipeline.ts';
import { EntityType, type NerProvider } from '../types.ts';

// The row types from the tables, not from memory/memories.ts and turns/turns.ts: the entities module sits
// below both (memory/memories.ts links what it saves through this file).
type MemoryRow = typeof memories.$inferSelect;
type TurnRow = typeof turns.$inferSelect;

/** The speaker of a turn (its name) is a person it mentions. */
const speakerOf = (turn: Pick<TurnRow, 'name'>): Mention[] =>
  turn.name ? [{ name: turn.name, type: EntityType.Person }] : [];

/**
 * Hot path, inside addTurn's transaction: regex + known names + the speaker, linked to the
 * turn, and the accurate pass queued in the same transaction (so it survives a crash), or
 * deferred while its queue is full (see deferral.ts). `speaker`: the speaker's entity as the
 * turn's own statement read it (Postgres), so it is not looked up again.
 */
export async function linkTurnFast(
  store: Store,
  turn: TurnRow,
  extras: NerExtras = {},
  accurateQueued = false,
  speaker?: EntityRow,
): Promise<EntityRow[]> {
  if (!store.config.ner.enabled) return [];
  const space = spaceOfRow(turn);
  const found = extractSync(turn.text, await fastProviders(store, space));
  const speakers = speakerOf(turn).map((mention) => (speaker ? { ...mention, entityId: speaker.id } : mention));
  const linked = (
    await linkEntities(
      store,
      space,
      { turnId: turn.id },
      [...speakers, ...found],
      speaker && new Map([[speaker.id, speaker]]),
    )
  ).entities;
  if (!accurateQueued && accurateNerAvailability(store.config, extras).available) await queueAccurateNer(store, turn);
  return linked;
}

/**
 * Whether a turn added now gets an accurate-NER job (not in cheap mode, see deferral.ts): asked
 * before the turn is written, so the job can go in with it (addTurn's `turnJob`), and then
 * linkTurnFast is told it is queued.
 */
export async function accurateNerJobNow(store: Store, extras: NerExtras = {}): Promise<boolean> {
  return (
    store.config.ner.enabled && accurateNerAvailability(store.config, extras).available && !(await nerCheapMode(store))
  );
}

/**
 * Links memories just extracted from `turn` to what their content names. The turn's own
 * entities were linked in this same transaction, so the known-names index (committed names
 * only) cannot see a first-time speaker yet: they are matched from a small overlay instead,
 * which is how "Alex likes tea" reaches the speaker Alex on Alex's first turn. `turnEntities`:
 * the turn's entities when the caller has them (linkTurnFast's result), saving their read.
 */
export async function linkMemoriesFast(
  store: Store,
  space: Space,
  created: MemoryRow[],
  turn: Pick<TurnRow, 'id'> | null,
  turnEntities?: EntityRow[],
) {
  if (!store.config.ner.enabled || created.length === 0) return;
  await linkWithTurnEntities(store, space, created, turn?.id ?? null, turnEntities);
}

/** Fast providers plus the source turn's entities as known names; returns the new links. */
async function linkWithTurnEntities(
  store: Store,
  space: Space,
  rows: Pick<MemoryRow, 'id' | 'content'>[],
  turnId: number | null,
  turnEntities?: EntityRow[],
): Promise<number> {
  const providers = await fastProviders(store, space);
  const ofTurn = turnEntities ?? (turnId === null ? [] : await entitiesOfTurn(store, turnId));
  const overlay = new NameIndex();
  for (const entity of ofTurn) overlay.add(entity);
  // Rows read in this transaction: a mention of one of them needs no lookup.
  const rowsOfTurn = new Map(ofTurn.map((entity) => [entity.id, entity]));
  let added = 0;
  for (const memory of rows) {
    const found = mergeBySpan([
      ...providers.flatMap((p) => p.extract(memory.content)),
      ...overlay.match(memory.content),
    ]);
    added += (await linkEntities(store, space, { memoryId: memory.id }, found, rowsOfTurn)).added;
  }
  return added;
}

export type EnrichTarget = (
  | { kind: 'turn'; id: number; text: string; name: string | null }
  | { kind: 'memory'; id: number; text: string }
) & { userId: string };
/** `links`: new links made (an entity already linked to the row does not count again). */
export type EnrichOutcome = { enriched: number; links: number; gone: number; failures: NerRun['failures'] };

const STAMP_TURN = 'update turns set enriched_at = ? where id = ?';
const STAMP_MEMORY = 'update memories set enriched_at = ? where id = ?';

/**
 * Accurate NER for some turns and memories: extraction first (it may wait on an LLM, so it
 * runs outside any transaction), then one write that links what was found and stamps
 * enriched_at. Rows deleted in between (forget) are skipped.
 */
export async function enrichTargets(
  store: Store,
  targets: EnrichTarget[],
  extras: NerExtras = {},
): Promise<EnrichOutcome> {
  const items: { text: string; providers: NerProvider[] }[] = [];
  for (const target of targets)
    items.push({
      text: target.text,
      providers: await accurateProviders(store, { userId: target.userId, agentId: null }, extras),
    });
  const found = await extractEntitiesMany(items);
  const runs = targets.map((target, i) => ({ target, run: found[i]! }));
  return write(store, async () => {
    const now = store.clock.now();
    const outcome: EnrichOutcome = { enriched: 0, links: 0, gone: 0, failures: [] };
    for (const { target, run } of runs) {
      outcome.failures.push(...run.failures);
      const stamped =
        (await store.sql.run(target.kind === 'turn' ? STAMP_TURN : STAMP_MEMORY, [now, target.id])).changes > 0;
      if (!stamped) {
        outcome.gone++;
        continue;
      }
      const mentions = target.kind === 'turn' ? [...speakerOf(target), ...run.entities] : run.entities;
      const owner = target.kind === 'turn' ? { turnId: target.id } : { memoryId: target.id };
      outcome.links += (await linkEntities(store, { userId: target.userId, agentId: null }, owner, mentions)).added;
      outcome.enriched++;
    }
    return outcome;
  });
}

/**
 * The durable job after turns (a batch of them): accurate NER for each turn, then the memories
 * extracted from it. Those restate the turn, so they are matched against the turn's entities
 * (now including the accurate ones) rather than sent through the accurate providers again: one
 * compromise parse per batch and at most one LLM call per turn, however many facts it gave.
 * A turn queued twice runs once; one stamped since it was queued (by the catch-up or the nightly
 * enrichment) is not read again; one forgotten since is skipped.
 */
export async function runAccurateNer(
  store: Store,
  turnIds: readonly number[],
  extras: NerExtras = {},
): Promise<EnrichOutcome> {
  const ids = [...new Set(turnIds)];
  const rows = await store.db
    .select({
      id: turns.id,
      text: turns.text,
      name: turns.name,
      userId: turns.userId,
      agentId: turns.agentId,
      enrichedAt: turns.enrichedAt,
    })
    .from(turns)
    .where(inArray(turns.id, ids))
    .orderBy(turns.id)
    .all();
  const targets = rows
    .filter((t) => t.enrichedAt === null)
    .map((t): EnrichTarget => ({ kind: 'turn', id: t.id, text: t.text, name: t.name, userId: t.userId }));
  const outcome = await enrichTargets(store, targets, extras);
  outcome.gone += ids.length - rows.length;
  return write(store, async () => {
    const derived = await store.db
      .select({ id: memories.id, content: memories.content, turnId: memorySources.turnId })
      .from(memorySources)
      .innerJoin(memories, eq(memories.id, memorySources.memoryId))
      .where(
        and(
          inArray(
            memorySources.turnId,
            rows.map((t) => t.id),
          ),
          inArray(memorySources.reason, ['extracted', 'conflict']),
          isNull(memories.enrichedAt),
        ),
      )
      .all();
    if (derived.length === 0) return outcome;
    await store.db
      .update(memories)
      .set({ enrichedAt: store.clock.now() })
      .where(inArray(memories.id, [...new Set(derived.map((m) => m.id))]))
      .run();
    for (const turn of rows) {
      const mine = derived.filter((m) => m.turnId === turn.id);
      if (mine.length === 0) continue;
      outcome.links += await linkWithTurnEntities(store, spaceOfRow(turn), mine, turn.id);
      outcome.enriched += mine.length;
    }
    return outcome;
  });
}
