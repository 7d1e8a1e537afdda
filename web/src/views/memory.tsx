// One memory: what it says, why it is where it is (the score and its terms, the rules it
// matches), where it came from (provenance turns), what happened to it (decision history), and
// the actions a person takes on it: confirm, correct, forget.
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { ExplainQuery, MemoryQuery } from '../../../client/src/index.ts';
import { useApi, useQuery } from '../api.ts';
import { href } from '../router.ts';
import { Badge, detailText, ErrorBox, fixed, Loading, MemoryBadges, MemoryLink, num, Section, Time } from '../ui.tsx';
import { Actions } from './memory-actions.tsx';

type Explanation = ExplainQuery['explain'];
type Memory = NonNullable<MemoryQuery['memory']>;

export function MemoryView({ id }: { id: number }) {
  const { liveTick } = useApi();
  // What the last action did; kept here, since a forgotten memory's actions are gone.
  const [notice, setNotice] = useState<string | null>(null);
  useEffect(() => setNotice(null), [id]);
  const loaded = useQuery((c) => Promise.all([c.memory({ id }), c.explain({ id })]), [id, liveTick]);
  if (!Number.isInteger(id) || id <= 0)
    return <ErrorBox error={{ code: 'BAD_USER_INPUT', message: 'not a memory id' }} />;
  if (loaded.error && !loaded.data) return <ErrorBox error={loaded.error} retry={loaded.reload} />;
  if (!loaded.data) return <Loading />;
  const [{ memory }, { explain }] = loaded.data;
  return (
    <div class="view memory-page">
      <p class="crumbs">
        <a href={href('memories')}>Memories</a> / #{id}
      </p>
      <h1 class="memory-title">{memory?.content ?? <span class="muted">deleted memory #{id}</span>}</h1>
      {loaded.error && <ErrorBox error={loaded.error} retry={loaded.reload} />}
      {memory ? <Summary memory={memory} explain={explain} /> : <Badge kind="deleted">deleted</Badge>}
      {memory && <Actions memory={memory} onDone={loaded.reload} onNotice={setNotice} />}
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      <div class="grid">
        <Score explain={explain} />
        <Provenance explain={explain} memory={memory} />
        <Relations explain={explain} memory={memory} />
        <History explain={explain} />
      </div>
    </div>
  );
}

function Summary({ memory, explain }: { memory: Memory; explain: Explanation }) {
  const superseded = explain.supersededBy.length > 0;
  const facts: [string, ComponentChildren][] = [
    ['Score', num(memory.score, 3)],
    ['Confidence', num(memory.confidence, 3)],
    ['Importance', fixed(memory.importance)],
    ['Hits', memory.hits],
    ['Retrieved', `${memory.accessCount}×`],
    ['Decay rate', memory.decayRate === 0 ? 'none (protected)' : `${num(memory.decayRate, 3)}/day`],
    ['Created', <Time at={memory.createdAt} />],
    ['Last seen', <Time at={memory.lastSeenAt} />],
    ['Last retrieved', <Time at={memory.lastAccessedAt} />],
  ];
  if (memory.validUntil) facts.push(['Archived', <Time at={memory.validUntil} />]);
  if (memory.session) facts.push(['Session', <a href={href('sessions', memory.session.id)}>{memory.session.id}</a>]);
  if (memory.agentId) facts.push(['Agent', memory.agentId]);
  if (memory.fact) {
    const { subject, slot, value, polarity } = memory.fact;
    facts.push([
      'Fact',
      <code>{`${subject}.${slot}${value !== null ? ` = ${value}` : ''}${polarity === -1 ? ' (negated)' : ''}`}</code>,
    ]);
  }
  return (
    <div class="summary-block">
      <MemoryBadges memory={memory} superseded={superseded} />
      <dl class="facts">
        {facts.map(([term, value]) => (
          <div key={term}>
            <dt>{term}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      {memory.entities.length > 0 && (
        <p class="chips">
          {memory.entities.map((entity) => (
            <a key={entity.id} class="chip" href={href('entities', entity.id)}>
              {entity.name} <span class="muted">{entity.type}</span>
            </a>
          ))}
        </p>
      )}
    </div>
  );
}

function Score({ explain }: { explain: Explanation }) {
  const terms = [
    ['frequency', explain.scoreTerms.frequency, 'w_freq · ln(1 + hits)'],
    ['recency', explain.scoreTerms.recency, 'w_recency · e^(−λ · age days)'],
    ['importance', explain.scoreTerms.importance, 'w_importance · importance'],
  ] as const;
  const total = terms.reduce((sum, [, value]) => sum + Math.max(0, value), 0) || 1;
  return (
    <Section title="Why it is here">
      <p>
        Score now <strong>{num(explain.score, 3)}</strong> ({explain.status.toLowerCase()}), confidence{' '}
        {num(explain.confidence, 3)}
        {explain.protected ? ', protected' : ''}.
      </p>
      <div class="bar" role="img" aria-label={terms.map(([name, value]) => `${name} ${num(value, 3)}`).join(', ')}>
        {terms.map(([name, value]) => (
          <span key={name} class={`bar-${name}`} style={{ width: `${(100 * Math.max(0, value)) / total}%` }} />
        ))}
      </div>
      <table class="terms">
        <tbody>
          {terms.map(([name, value, formula]) => (
            <tr key={name}>
              <th scope="row">
                <span class={`swatch bar-${name}`} /> {name}
              </th>
              <td>{num(value, 3)}</td>
              <td class="muted">{formula}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p class="muted">
        {explain.hits} hits · {num(explain.ageDays, 1)} days old · seen {num(explain.daysSinceSeen, 1)} days ago ·{' '}
        {explain.daysSinceAccess === null
          ? 'never retrieved'
          : `retrieved ${num(explain.daysSinceAccess, 1)} days ago (${explain.accessCount}×)`}
      </p>
      {explain.rules.length > 0 && (
        <>
          <h3>Rules it matches</h3>
          <ul class="rules">
            {explain.rules.map((rule) => (
              <li key={rule}>{rule}</li>
            ))}
          </ul>
        </>
      )}
    </Section>
  );
}

function Provenance({ explain, memory }: { explain: Explanation; memory: Memory | null }) {
  const sources =
    memory?.sources ??
    explain.sources.map((s) => ({ ...s, turn: { ...s.turn, role: null as string | null, at: null as string | null } }));
  return (
    <Section title="Where it came from">
      {sources.length === 0 ? (
        <p class="muted">No source turn (saved with remember, or a reflection).</p>
      ) : (
        <ol class="sources">
          {sources.map((source) => (
            <li key={`${source.turn.id}-${source.reason}`}>
              <p class="source-head">
                <Badge kind="reason">{source.reason.toLowerCase()}</Badge>
                {source.rule && <code>{source.rule}</code>} <Time at={source.at} /> ·{' '}
                <a href={href('sessions', source.turn.sessionId)}>
                  {source.turn.sessionId} turn {source.turn.id}
                </a>
              </p>
              <blockquote>{source.turn.text}</blockquote>
            </li>
          ))}
        </ol>
      )}
    </Section>
  );
}

function Relations({ explain, memory }: { explain: Explanation; memory: Memory | null }) {
  const groups = [
    ['Replaced by', memory?.supersededBy ?? explain.supersededBy],
    ['Replaces', memory?.supersedes ?? explain.supersedes],
    ['Derived from', memory?.derivedFrom ?? explain.derivedFrom],
  ] as const;
  if (groups.every(([, list]) => list.length === 0)) return null;
  return (
    <Section title="Related memories">
      {groups.map(([title, list]) =>
        list.length === 0 ? null : (
          <div key={title}>
            <h3>{title}</h3>
            <ul class="plain">
              {list.map((m) => (
                <li key={m.id}>
                  <MemoryLink id={m.id} /> {m.content}
                </li>
              ))}
            </ul>
          </div>
        ),
      )}
    </Section>
  );
}

function History({ explain }: { explain: Explanation }) {
  return (
    <Section title="Decision history">
      {explain.decisions.length === 0 ? (
        <p class="muted">No decisions recorded.</p>
      ) : (
        <ol class="history">
          {explain.decisions.map((d) => (
            <li key={d.id}>
              <Badge kind={`action-${d.action.toLowerCase()}`}>{d.action.toLowerCase()}</Badge> <Time at={d.at} />
              <span class="detail">{detailText(d.detail)}</span>
            </li>
          ))}
        </ol>
      )}
    </Section>
  );
}
