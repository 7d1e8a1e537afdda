// Weekly reflection: at most once per interval and only when enough facts arrived;
// saved as a protected long-term memory tagged `weekly`, derived_from its source facts.
import { and, desc, eq, gte, inArray, sql } from 'drizzle-orm';
import { entities, memories, memoryEntities, memoryRelations } from '../../../drizzle/schema.ts';
import { DAY_MS } from '../kernel/clock.ts';
import { groupBy } from '../kernel/group-by.ts';
import { addRelation, insertMemory, type MemoryRow } from './memories.ts';
import type { Space } from '../kernel/space.ts';
import { prepared, write, type Store } from '../kernel/store.ts';

export type ReflectionInputs = {
  from: number;
  to: number;
  facts: MemoryRow[];
  /** Facts of the window that replaced older ones: [new, old]. */
  changes: [MemoryRow, MemoryRow][];
  /** Facts grouped by the person or thing they are about. */
  byTopic: Map<string, MemoryRow[]>;
};

export type ReflectionDecision = { run: true; inputs: ReflectionInputs } | { run: false; reason: string };

/** The user's newest reflection (reflections are the user's, shared by every agent). */
export async function latestReflection(store: Store, space: Space): Promise<MemoryRow | undefined> {
  // Prepared once: building the query costs more than the indexed lookup (memories_kind_status_created).
  return prepared(store, 'reflection.latest', (db) =>
    db
      .select()
      .from(memories)
      .where(
        and(
          eq(memories.userId, sql.placeholder('userId')),
          eq(memories.kind, 'reflection'),
          eq(memories.status, 'active'),
        ),
      )
      .orderBy(desc(memories.createdAt), desc(memories.id))
      .limit(1)
      .prepare(),
  ).get({ userId: space.userId });
}

async function topicsOf(store: Store, facts: MemoryRow[]): Promise<Map<string, MemoryRow[]>> {
  const ids = facts.map((f) => f.id);
  const links = ids.length
    ? await store.db
        .select({ memoryId: memoryEntities.memoryId, name: entities.name, mentions: entities.mentionCount })
        .from(memoryEntities)
        .innerJoin(entities, eq(entities.id, memoryEntities.entityId))
        .where(inArray(memoryEntities.memoryId, ids))
    : [];
  // The most mentioned entity of a fact names its topic; else its structured subject.
  const topEntity = new Map<number, string>();
  for (const [memoryId, rows] of groupBy(links, (l) => l.memoryId)) {
    topEntity.set(memoryId, rows.sort((a, b) => b.mentions - a.mentions)[0]!.name);
  }
  return groupBy(facts, (fact) => topEntity.get(fact.id) ?? fact.subject ?? 'General');
}

/** Whether a reflection is due now for this user, and what it would be about. */
export async function reflectionDue(store: Store, space: Space): Promise<ReflectionDecision> {
  const { min_interval_days, window_days, min_facts } = store.config.reflection;
  const now = store.clock.now();
  const latest = await latestReflection(store, space);
  if (latest && now - latest.createdAt < min_interval_days * DAY_MS) {
    return {
      run: false,
      reason: `the last reflection is ${((now - latest.createdAt) / DAY_MS).toFixed(1)} days old (< ${min_interval_days})`,
    };
  }
  const from = now - window_days * DAY_MS;
  const facts = await store.db
    .select()
    .from(memories)
    .where(and(eq(memories.userId, space.userId), eq(memories.kind, 'fact'), gte(memories.createdAt, from)))
    .orderBy(memories.createdAt, memories.id);
  const active = facts.filter((f) => f.status === 'active');
  if (active.length < min_facts)
    return { run: false, reason: `${active.length} new facts in ${window_days} days (< ${min_facts})` };
  const byId = new Map(facts.map((f) => [f.id, f]));
  const supersedes = await store.db
    .select()
    .from(memoryRelations)
    .where(
      and(
        eq(memoryRelations.kind, 'supersedes'),
        inArray(
          memoryRelations.fromId,
          active.map((f) => f.id),
        ),
      ),
    );
  const changes: [MemoryRow, MemoryRow][] = [];
  for (const r of supersedes) {
    const old = byId.get(r.toId) ?? (await store.db.select().from(memories).where(eq(memories.id, r.toId)).get());
    if (old) changes.push([byId.get(r.fromId)!, old]);
  }
  return { run: true, inputs: { from, to: now, facts: active, changes, byTopic: await topicsOf(store, active) } };
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The reflection written without a model: the week's facts by topic, and what changed. */
export function templateReflection(inputs: ReflectionInputs): string {
  const lines = [`Weekly reflection ${day(inputs.from)} to ${day(inputs.to)}: ${inputs.facts.length} new facts.`];
  const topics = [...inputs.byTopic].sort((a, b) => b[1].length - a[1].length);
  for (const [topic, facts] of topics.slice(0, 8)) {
    const shown = facts.slice(0, 5).map((f) => f.content);
    lines.push(`- ${topic} (${facts.length}): ${shown.join('; ')}${facts.length > shown.length ? '; …' : ''}`);
  }
  if (inputs.changes.length > 0) {
    lines.push('What changed:');
    for (const [fresh, old] of inputs.changes.slice(0, 8)) lines.push(`- "${fresh.content}" replaced "${old.content}"`);
  }
  return lines.join('\n');
}

export async function saveReflection(
  store: Store,
  space: Space,
  content: string,
  inputs: ReflectionInputs,
): Promise<MemoryRow> {
  return write(store, async () => {
    const reflection = await insertMemory(
      store,
      { userId: space.userId, agentId: null },
      { content, kind: 'reflection', layer: 'long', decayRate: 0, importance: 1, tags: ['weekly'], eventAt: inputs.to },
    );
    for (const fact of inputs.facts) await addRelation(store, reflection.id, fact.id, 'derived_from');
    return reflection;
  });
}
