// The mid and long layers' memories, read a page of 100 at a time as the list scrolls and drawn
// by a virtual list. New memory events refresh the list while it is scrolled to the top.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import {
  type MemoriesQueryVariables,
  type MemoryFieldsFragment,
  type MemoryLayer,
  type MemorySort,
  MemoryStatus,
} from '../../../client/src/index.ts';
import { type ShownError, useApi } from '../api.ts';
import { href } from '../router.ts';
import { count, ErrorBox, MemoryBadges, MemoryNumbers } from '../ui.tsx';
import { VirtualList } from '../virtual-list.tsx';

const PAGE = 100;
const ROW_HEIGHT = 68;

export type Status = 'active' | 'superseded' | 'archived';

const STATUS_FILTER: Record<Status, Pick<MemoriesQueryVariables, 'status' | 'superseded'>> = {
  active: { status: MemoryStatus.Active },
  superseded: { status: MemoryStatus.Archived, superseded: true },
  archived: { status: MemoryStatus.Archived, superseded: false },
};

type Filter = { layer: MemoryLayer; status: Status; sort: MemorySort; q: string };
type Cursor = { after: string | null; more: boolean; generation: number; busy: boolean };

/**
 * The pages read so far of the memories `filter` selects; `load(true)` starts over from the
 * first page, `load(false)` reads the next. An answer for an older filter is dropped.
 */
function useMemoryPages({ layer, status, sort, q }: Filter) {
  const { client, report } = useApi();
  const [items, setItems] = useState<MemoryFieldsFragment[]>([]);
  const [total, setTotal] = useState<number | null>(null);
  const [error, setError] = useState<ShownError | null>(null);
  const [loading, setLoading] = useState(false);
  const cursor = useRef<Cursor>({ after: null, more: true, generation: 0, busy: false });
  const filterKey = `${layer}|${status}|${sort}|${q}`;

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

  return { items, total, error, loading, load, filterKey };
}

/** Live: a new event refreshes the first page when the list is at its top, else offers to. */
function useLiveRefresh(reload: () => void) {
  const { liveTick } = useApi();
  const [atTop, setAtTop] = useState(true);
  const [fresh, setFresh] = useState(0);
  useEffect(() => {
    if (liveTick === 0) return;
    if (atTop) {
      const timer = setTimeout(reload, 250);
      return () => clearTimeout(timer);
    }
    setFresh((n) => n + 1);
  }, [liveTick]);
  const onScroll = (event: Event) => {
    const top = (event.target as HTMLElement).scrollTop < ROW_HEIGHT;
    if (top !== atTop) setAtTop(top);
    if (top) setFresh(0);
  };
  const refresh = () => {
    setFresh(0);
    setAtTop(true);
    reload();
  };
  return { offer: fresh > 0 && !atTop, onScroll, refresh };
}

function MemoryRow({ memory, superseded }: { memory: MemoryFieldsFragment; superseded: boolean }) {
  return (
    <a class="memory-row" href={href('memory', memory.id)}>
      <span class="content">{memory.content}</span>
      <span class="meta">
        <span class="id">#{memory.id}</span>
        <MemoryBadges memory={memory} superseded={superseded} />
        <MemoryNumbers memory={memory} />
      </span>
    </a>
  );
}

export function MemoryList(filter: Filter) {
  const { items, total, error, loading, load, filterKey } = useMemoryPages(filter);
  const live = useLiveRefresh(() => void load(true));
  const onEnd = useCallback(() => void load(false), [load]);
  const superseded = filter.status === 'superseded';
  return (
    <div class="list-area" onScrollCapture={live.onScroll}>
      <p class="summary" aria-live="polite">
        {total === null ? 'Loading…' : count(total, 'memory', 'memories')}
        {loading && total !== null && ' (loading more…)'}
        {live.offer && (
          <button type="button" class="link" onClick={live.refresh}>
            New events: refresh
          </button>
        )}
      </p>
      {error && <ErrorBox error={error} retry={() => void load(items.length === 0)} />}
      {total === 0 && !error && <p class="empty">No memories here{filter.q ? ` matching “${filter.q}”` : ''}.</p>}
      {items.length > 0 && (
        <VirtualList
          label="memories"
          items={items}
          rowHeight={ROW_HEIGHT}
          onEnd={onEnd}
          resetKey={filterKey}
          row={(memory) => <MemoryRow memory={memory} superseded={superseded} />}
        />
      )}
    </div>
  );
}
