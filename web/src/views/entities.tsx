// Entities: the co-mention graph of the most mentioned ones, a searchable list, and an entity's
// profile (its neighbourhood, the memories and turns that mention it).
import { useEffect, useState } from 'preact/hooks';
import { useApi, useQuery } from '../api.ts';
import { EntityGraphView, TYPE_COLOURS } from '../graph.tsx';
import { href } from '../router.ts';
import { Badge, count, ErrorBox, Loading, MemoryBadges, MemoryNumbers, Section, Time } from '../ui.tsx';

export function EntitiesView({ entityId }: { entityId: number | null }) {
  return entityId ? <EntityProfile id={entityId} /> : <EntityOverview />;
}

function Legend() {
  return (
    <p class="legend">
      {Object.entries(TYPE_COLOURS)
        .slice(0, 6)
        .map(([type, colour]) => (
          <span key={type}>
            <span class="dot" style={{ background: colour }} /> {type}
          </span>
        ))}
    </p>
  );
}

function EntityOverview() {
  const { liveTick } = useApi();
  const graph = useQuery((c) => c.entityGraph({ first: 30 }), [liveTick === 0]);
  const [q, setQ] = useState('');
  const [query, setQuery] = useState('');
  useEffect(() => {
    const timer = setTimeout(() => setQuery(q.trim()), 250);
    return () => clearTimeout(timer);
  }, [q]);
  const list = useQuery((c) => c.entities({ q: query || undefined, first: 100 }), [query]);
  return (
    <div class="view">
      <h1>Entities</h1>
      <div class="grid two">
        <Section title="Mentioned together" actions={<Legend />}>
          {graph.error && <ErrorBox error={graph.error} retry={graph.reload} />}
          {graph.data ? (
            <EntityGraphView
              graph={graph.data.entityGraph}
              label="co-mention graph of the 30 most mentioned entities"
            />
          ) : (
            !graph.error && <Loading />
          )}
          <p class="muted">
            The 30 most mentioned entities; a line joins two mentioned in the same memory or turn, thicker the more
            often.
          </p>
        </Section>
        <Section title="All entities">
          <label class="field">
            <span>Find</span>
            <input
              type="search"
              value={q}
              placeholder="name or alias"
              onInput={(event) => setQ((event.target as HTMLInputElement).value)}
            />
          </label>
          {list.error && <ErrorBox error={list.error} retry={list.reload} />}
          {list.data && (
            <>
              <p class="summary">{count(list.data.entities.totalCount, 'entity', 'entities')}</p>
              <ul class="plain entity-list">
                {list.data.entities.edges.map(({ node }) => (
                  <li key={node.id}>
                    <a href={href('entities', node.id)}>{node.name}</a> <Badge kind="type">{node.type}</Badge>{' '}
                    <span class="muted">{count(node.mentionCount, 'mention')}</span>
                  </li>
                ))}
              </ul>
            </>
          )}
        </Section>
      </div>
    </div>
  );
}

function EntityProfile({ id }: { id: number }) {
  const { liveTick } = useApi();
  const entity = useQuery((c) => c.entity({ id, first: 20 }), [id, liveTick]);
  const graph = useQuery((c) => c.entityGraph({ around: id, first: 12 }), [id]);
  if (entity.error && !entity.data) return <ErrorBox error={entity.error} retry={entity.reload} />;
  if (!entity.data) return <Loading />;
  const e = entity.data.entity;
  const names = new Map(graph.data?.entityGraph.nodes.map((n) => [n.id, n.name]) ?? []);
  const neighbours = (graph.data?.entityGraph.links ?? [])
    .filter((l) => l.sourceId === id || l.targetId === id)
    .map((l) => ({ id: l.sourceId === id ? l.targetId : l.sourceId, memories: l.memories, turns: l.turns }));
  return (
    <div class="view">
      <p class="crumbs">
        <a href={href('entities')}>Entities</a> / {e.name}
      </p>
      <h1>
        {e.name} <Badge kind="type">{e.type}</Badge>
      </h1>
      <p class="summary">
        {count(e.mentionCount, 'mention')} · first seen <Time at={e.createdAt} />
        {e.aliases.length > 0 && <> · also “{e.aliases.join('”, “')}”</>}
      </p>
      {e.summary && <p>{e.summary}</p>}
      <div class="grid two">
        <Section title="Mentioned with">
          {graph.error && <ErrorBox error={graph.error} retry={graph.reload} />}
          {graph.data && (
            <EntityGraphView graph={graph.data.entityGraph} current={id} label={`entities mentioned with ${e.name}`} />
          )}
          {neighbours.length > 0 && (
            <ul class="plain">
              {neighbours.map((n) => (
                <li key={n.id}>
                  <a href={href('entities', n.id)}>{names.get(n.id) ?? `#${n.id}`}</a>{' '}
                  <span class="muted">
                    {count(n.memories, 'memory', 'memories')}, {count(n.turns, 'turn')}
                  </span>
                </li>
              ))}
            </ul>
          )}
        </Section>
        <Section title={`Memories (${e.memories.totalCount})`}>
          {e.memories.edges.length === 0 && <p class="muted">No active memory mentions it.</p>}
          <ul class="plain">
            {e.memories.edges.map(({ node }) => (
              <li key={node.id} class="entity-memory">
                <a href={href('memory', node.id)}>{node.content}</a>
                <span class="meta">
                  <MemoryBadges memory={node} /> <MemoryNumbers memory={node} />
                </span>
              </li>
            ))}
          </ul>
        </Section>
        <Section title={`Turns (${e.turns.totalCount})`}>
          <ol class="turns">
            {e.turns.edges.map(({ node }) => (
              <li key={node.id} class={`turn turn-${node.role.toLowerCase()}`}>
                <span class="who">{node.name ?? node.role.toLowerCase()}</span> <Time at={node.at} /> ·{' '}
                <a href={href('sessions', node.sessionId)}>{node.sessionId}</a>
                <p>{node.text}</p>
              </li>
            ))}
          </ol>
        </Section>
      </div>
    </div>
  );
}
