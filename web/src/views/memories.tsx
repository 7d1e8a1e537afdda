// Memories by layer and status. Short is the short-term window (a session's latest turns); mid
// and long are memories, active, superseded (archived because a newer one replaced them) or
// archived (for any other reason), read a page of 100 at a time as the list scrolls, and drawn
// by a virtual list. New memory events refresh the list while it is scrolled to the top.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import {
  MemoryLayer,
  type MemorySort,
  MemoryStatus,
  type MemoriesQueryVariables,
  type MemoryFieldsFragment,
} from '../../../client/src/index.ts';
import { useApi, useQuery, type ShownError } from '../api.ts';
import { href, replaceParams, type Route } from '../router.ts';
import { count, ErrorBox, Loading, MemoryBadges, MemoryNumbers, Time } from '../ui.tsx';
import { VirtualList } from '../virtual-list.tsx';

const PAGE = 100;
const ROW_HEIGHT = 68;

type Layer = 'short' | 'mid' | 'long';
type Status = 'active' | 'superseded' | 'archived';

const STATUS_FILTER: Record<Status, Pick<MemoriesQueryVariables, 'status' | 'superseded'>> = {
  active: { status: MemoryStatus.Active },
  superseded: { status: MemoryStatus.Archived, superseded: true },
  archived: { status: MemoryStatus.Archived, superseded: false },
};

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
  const layer = (
    ['short', 'mid', 'long'].includes(route.params.get('layer') ?? '') ? route.params.get('layer') : 'mid'
  ) as Layer;
  const status = (
    ['active', 'superseded', 'archived'].includes(route.params.get('status') ?? '')
      ? route.params.get('status')
      : 'active'
  ) as Status;
  const sort = (
    ['SCORE', 'RECENT', 'HITS'].includes(route.params.get('sort') ?? '') ? route.params.get('sort') : 'SCORE'
  ) as MemorySort;
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

function MemoryList({ layer, status, sort, q }: { layer: MemoryLayer; status: Status; sort: MemorySort; q: string }) {
  const { client, report, liveTick } = useApi();
  const [items, setItems] = useState<MemoryFieldsFragment[]>([]);
  const [total, setTotal] = useState<number | null>(null);
  const [error, setError] = useState<ShownError | null>(null);
  const [loading, setLoading] = useState(false);
  const cursor = useRef<{ after: string | null; more: boolean; generation: number; busy: boolean }>({
    after: null,
    more: true,
    generation: 0,
    busy: false,
  });
  const filterKey = `${layer}|${status}|${sort}|${q}`;
  const [atTop, setAtTop] = useState(true);
  const [fresh, setFresh] = useState(0);

  const load = useCallback(
    async (reset: boolean) => {
      const state = cursor.current;
      if (reset) {
        state.generation++;
        state.after = null;
        state.more = true;
        state.busy = false;
      }
      if (state.busy || !state.more) return;
      state.busy = true;
      const generation = state.generation;
      setLoading(true);
      try {
        const { memories } = await client.memories({
          layer,
          sort,
          q: q || undefined,
          first: PAGE,
          after: state.after,
          ...STATUS_FILTER[status],
        });
        if (generation !== state.generation) return;
        state.after = memories.pageInfo.endCursor ?? null;
        state.more = memories.pageInfo.hasNextPage;
        setTotal(memories.totalCount);
        setItems((previous) =>
          reset ? memories.edges.map((e) => e.node) : [...previous, ...memories.edges.map((e) => e.node)],
        );
        setError(null);
      } catch (failure) {
        if (generation === state.generation) setError(report(failure));
      } finally {
        if (generation === state.generation) {
          state.busy = false;
          setLoading(false);
        }
      }
    },
    [client, filterKey],
  );

  useEffect(() => {
    setItems([]);
    setTotal(null);
    void load(true);
  }, [load]);

  // Live: a new event refreshes the first page when the list is at its top, else offers to.
  useEffect(() => {
    if (liveTick === 0) return;
    if (atTop) {
      const timer = setTimeout(() => void load(true), 250);
      return () => clearTimeout(timer);
    }
    setFresh((n) => n + 1);
  }, [liveTick]);

  const onEnd = useCallback(() => void load(false), [load]);
  const superseded = status === 'superseded';

  return (
    <div
      class="list-area"
      onScrollCapture={(event) => {
        const top = (event.target as HTMLElement).scrollTop < ROW_HEIGHT;
        if (top !== atTop) setAtTop(top);
        if (top) setFresh(0);
      }}
    >
      <p class="summary" aria-live="polite">
        {total === null ? 'Loading…' : count(total, 'memory', 'memories')}
        {loading && total !== null && ' (loading more…)'}
        {fresh > 0 && !atTop && (
          <button
            type="button"
            class="link"
            onClick={() => {
              setFresh(0);
              setAtTop(true);
              void load(true);
            }}
          >
            New events: refresh
          </button>
        )}
      </p>
      {error && <ErrorBox error={error} retry={() => void load(items.length === 0)} />}
      {total === 0 && !error && <p class="empty">No memories here{q ? ` matching “${q}”` : ''}.</p>}
      {items.length > 0 && (
        <VirtualList
          label="memories"
          items={items}
          rowHeight={ROW_HEIGHT}
          onEnd={onEnd}
          resetKey={filterKey}
          row={(memory) => (
            <a class="memory-row" href={href('memory', memory.id)}>
              <span class="content">{memory.content}</span>
              <span class="meta">
                <span class="id">#{memory.id}</span>
                <MemoryBadges memory={memory} superseded={superseded} />
                <MemoryNumbers memory={memory} />
              </span>
            </a>
          )}
        />
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
