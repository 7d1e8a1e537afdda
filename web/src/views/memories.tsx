// Memories by layer and status. Short is the short-term window (a session's latest turns); mid
// and long are memories, active, superseded (archived because a newer one replaced them) or
// archived (for any other reason), listed by memory-list.tsx.
import { useEffect, useState } from 'preact/hooks';
import { MemoryLayer, type MemorySort } from '../../../client/src/index.ts';
import { useApi, useQuery } from '../api.ts';
import { href, replaceParams, type Route } from '../router.ts';
import { count, ErrorBox, Loading, Time } from '../ui.tsx';
import { MemoryList, type Status } from './memory-list.tsx';

type Layer = 'short' | 'mid' | 'long';

/** The route's `name` parameter when it is one of `allowed`, else `fallback`. */
function paramIn<T extends string>(route: Route, name: string, allowed: T[], fallback: T): T {
  const value = route.params.get(name) ?? '';
  return (allowed as string[]).includes(value) ? (value as T) : fallback;
}

function Choice<T extends string>(props: {
  legend: string;
  name: string;
  value: T;
  options: [T, string][];
  onChange: (value: T) => void;
}) {
  return (
    <fieldset class="segmented">
      <legend>{props.legend}</legend>
      {props.options.map(([value, label]) => (
        <label key={value} class={props.value === value ? 'on' : ''}>
          <input
            type="radio"
            name={props.name}
            value={value}
            checked={props.value === value}
            onChange={() => props.onChange(value)}
          />
          {label}
        </label>
      ))}
    </fieldset>
  );
}

export function MemoriesView({ route }: { route: Route }) {
  const layer = paramIn<Layer>(route, 'layer', ['short', 'mid', 'long'], 'mid');
  const status = paramIn<Status>(route, 'status', ['active', 'superseded', 'archived'], 'active');
  const sort = paramIn<MemorySort>(route, 'sort', ['SCORE', 'RECENT', 'HITS'], 'SCORE');
  const q = route.params.get('q') ?? '';
  const [text, setText] = useState(q);
  useEffect(() => setText(q), [q]);
  useEffect(() => {
    if (text === q) return;
    const timer = setTimeout(() => replaceParams(route, { q: text }), 300);
    return () => clearTimeout(timer);
  }, [text]);

  return (
    <div class="view">
      <h1>Memories</h1>
      <div class="filters">
        <Choice
          legend="Layer"
          name="layer"
          value={layer}
          options={[
            ['short', 'Short'],
            ['mid', 'Mid'],
            ['long', 'Long'],
          ]}
          onChange={(v) => replaceParams(route, { layer: v })}
        />
        {layer !== 'short' && (
          <>
            <Choice
              legend="Status"
              name="status"
              value={status}
              options={[
                ['active', 'Active'],
                ['superseded', 'Superseded'],
                ['archived', 'Archived'],
              ]}
              onChange={(v) => replaceParams(route, { status: v })}
            />
            <label class="field">
              <span>Sort</span>
              <select
                value={sort}
                onChange={(event) => replaceParams(route, { sort: (event.target as HTMLSelectElement).value })}
              >
                <option value="SCORE">score</option>
                <option value="RECENT">recently seen</option>
                <option value="HITS">hits</option>
              </select>
            </label>
            <label class="field grow">
              <span>Filter</span>
              <input
                type="search"
                placeholder="words in the memory"
                value={text}
                onInput={(event) => setText((event.target as HTMLInputElement).value)}
              />
            </label>
          </>
        )}
      </div>
      {layer === 'short' ? (
        <ShortTerm route={route} />
      ) : (
        <MemoryList layer={layer === 'long' ? MemoryLayer.Long : MemoryLayer.Mid} status={status} sort={sort} q={q} />
      )}
    </div>
  );
}

/** The short-term layer: the latest turns of a session (the window context hands a model). */
function ShortTerm({ route }: { route: Route }) {
  const { liveTick } = useApi();
  const sessions = useQuery((c) => c.sessions({ first: 50 }), []);
  const chosen = route.params.get('session') ?? sessions.data?.sessions.edges[0]?.node.id ?? null;
  const session = useQuery(
    (c) => (chosen ? c.session({ id: chosen, last: 100 }) : Promise.resolve(null)),
    [chosen, liveTick],
  );
  if (sessions.error) return <ErrorBox error={sessions.error} retry={sessions.reload} />;
  if (!sessions.data) return <Loading />;
  if (sessions.data.sessions.totalCount === 0)
    return <p class="empty">No sessions yet: the short-term layer is a session's latest turns.</p>;
  const turns = session.data?.session?.turns;
  return (
    <div>
      <label class="field">
        <span>Session</span>
        <select
          value={chosen ?? ''}
          onChange={(event) => replaceParams(route, { session: (event.target as HTMLSelectElement).value })}
        >
          {sessions.data.sessions.edges.map(({ node }) => (
            <option key={node.id} value={node.id}>
              {node.id} ({count(node.turnCount, 'turn')})
            </option>
          ))}
        </select>
      </label>
      {session.error && <ErrorBox error={session.error} retry={session.reload} />}
      {turns && (
        <>
          <p class="summary">
            The last {count(turns.edges.length, 'turn')} of {turns.totalCount} in{' '}
            <a href={href('sessions', chosen!)}>{chosen}</a>, oldest first.
          </p>
          <ol class="turns">
            {turns.edges.map(({ node }) => (
              <li key={node.id} class={`turn turn-${node.role.toLowerCase()}`}>
                <span class="who">{node.name ?? node.role.toLowerCase()}</span> <Time at={node.at} />
                <p>{node.text}</p>
              </li>
            ))}
          </ol>
        </>
      )}
    </div>
  );
}
