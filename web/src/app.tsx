// The shell: who is looking (viewer), whose memory is on view (the user picker for the admin),
// the token box, the live event feed, the navigation, and the view of the current route.
import { Component, type ComponentChildren } from 'preact';
import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import type { SymbiosisClient, UsersQuery } from '../../client/src/index.ts';
import {
  ApiContext,
  connect,
  shown,
  storedToken,
  storedUser,
  storeToken,
  storeUser,
  type Api,
  type LiveState,
  type ShownError,
  type Viewer,
} from './api.ts';
import { href, useRoute, type Route } from './router.ts';
import { TokenDialog } from './token-dialog.tsx';
import { ErrorBox, Loading } from './ui.tsx';
import { EntitiesView } from './views/entities.tsx';
import { MemoriesView } from './views/memories.tsx';
import { MemoryView } from './views/memory.tsx';
import { ProfileView } from './views/profile.tsx';
import { SearchView } from './views/search.tsx';
import { SessionsView } from './views/sessions.tsx';
import { SystemView } from './views/system.tsx';
import { TimelineView } from './views/timeline.tsx';

const MAX_EVENTS = 500;

const NAV: [string, string][] = [
  ['memories', 'Memories'],
  ['profile', 'Profile'],
  ['sessions', 'Sessions'],
  ['search', 'Search'],
  ['entities', 'Entities'],
  ['timeline', 'Timeline'],
  ['system', 'System'],
];

/** Keeps a broken view from blanking the page: it says what broke, the rest stays usable. */
class Boundary extends Component<{ children: ComponentChildren; resetKey: string }, { error: Error | null }> {
  override state = { error: null as Error | null };
  override componentDidCatch(error: Error) {
    this.setState({ error });
  }
  override componentDidUpdate(previous: { resetKey: string }) {
    if (previous.resetKey !== this.props.resetKey && this.state.error) this.setState({ error: null });
  }
  override render() {
    return this.state.error ? (
      <ErrorBox error={{ code: 'PAGE_ERROR', message: this.state.error.message }} />
    ) : (
      this.props.children
    );
  }
}

function View({ route, live }: { route: Route; live: LiveState }) {
  const [section = 'memories', id] = route.path;
  switch (section) {
    case 'memory':
      return <MemoryView id={Number(id)} />;
    case 'sessions':
      return <SessionsView sessionId={id ?? null} />;
    case 'search':
      return <SearchView route={route} />;
    case 'profile':
      return <ProfileView />;
    case 'entities':
      return <EntitiesView entityId={id ? Number(id) : null} />;
    case 'timeline':
      return <TimelineView live={live} />;
    case 'system':
      return <SystemView />;
    default:
      return <MemoriesView route={route} />;
  }
}

function UserPicker({
  client,
  user,
  onPick,
}: {
  client: SymbiosisClient;
  user: string;
  onPick: (user: string) => void;
}) {
  const [users, setUsers] = useState<UsersQuery['users'] | null>(null);
  useEffect(() => {
    client.users({ first: 100 }).then(
      ({ users }) => setUsers(users),
      () => setUsers(null),
    );
  }, [client]);
  const ids = users?.edges.map((e) => e.node.id) ?? [];
  if (!ids.includes(user)) ids.unshift(user);
  return (
    <label class="picker">
      <span>User</span>
      <select value={user} onChange={(event) => onPick((event.target as HTMLSelectElement).value)}>
        {ids.map((id) => {
          const node = users?.edges.find((e) => e.node.id === id)?.node;
          return (
            <option key={id} value={id}>
              {node ? `${id} (${node.activeMemories} memories)` : id}
            </option>
          );
        })}
      </select>
    </label>
  );
}

/** The user whose latest turn or memory is the newest (pages of 100, up to 2,000 users), or null when there is none. */
async function latestActiveUser(client: SymbiosisClient): Promise<string | null> {
  let best: { id: string; at: string } | null = null;
  let after: string | undefined;
  for (let page = 0; page < 20; page++) {
    const { users } = await client.users({ first: 100, after });
    for (const { node } of users.edges)
      if (node.lastActiveAt && (!best || node.lastActiveAt > best.at)) best = { id: node.id, at: node.lastActiveAt };
    if (!users.pageInfo.hasNextPage || !users.pageInfo.endCursor) break;
    after = users.pageInfo.endCursor;
  }
  return best?.id ?? null;
}

export function App() {
  const route = useRoute();
  const [token, setToken] = useState<string | null>(storedToken);
  const client = useMemo(() => connect(token), [token]);
  const [viewer, setViewer] = useState<Viewer | null>(null);
  const [bootError, setBootError] = useState<ShownError | null>(null);
  const [prompt, setPrompt] = useState<string | null>(null);
  const [picked, setPicked] = useState<string>(() => storedUser() ?? 'default');
  // Nobody picked yet: the admin lands on the user with the latest activity, not an empty 'default'.
  const [landed, setLanded] = useState(() => storedUser() !== null);
  const [live, setLive] = useState<LiveState>({ status: 'connecting', error: null, events: [] });
  const [liveTick, setLiveTick] = useState(0);
  const [boot, setBoot] = useState(0);

  const askForToken = useCallback(
    (reason: string) => {
      setPrompt(reason);
    },
    [setPrompt],
  );

  useEffect(() => {
    let cancelled = false;
    setBootError(null);
    client.viewer().then(
      ({ viewer }) => {
        if (cancelled) return;
        setViewer(viewer);
        setPrompt(null);
      },
      (error: unknown) => {
        if (cancelled) return;
        const problem = shown(error);
        setViewer(null);
        if (problem.code === 'AUTH')
          askForToken(
            token
              ? 'The server refused this token: it is expired, wrong or revoked. Enter a valid one.'
              : 'This server needs a token.',
          );
        else setBootError(problem);
      },
    );
    return () => {
      cancelled = true;
      void client.dispose();
    };
  }, [client, boot]);

  useEffect(() => {
    if (!viewer?.admin || landed) return;
    let cancelled = false;
    latestActiveUser(client).then(
      (id) => {
        if (cancelled) return;
        if (id) setPicked(id);
        setLanded(true);
      },
      () => !cancelled && setLanded(true),
    );
    return () => {
      cancelled = true;
    };
  }, [client, viewer, landed]);

  const user = viewer ? (viewer.admin ? picked : (viewer.userId ?? 'default')) : picked;
  const bound = useMemo(() => (viewer?.admin ? client.forUser(picked) : client), [client, viewer, picked]);

  // Live memory events of the space on view, for the timeline and the lists.
  useEffect(() => {
    if (!viewer) return;
    let stopped = false;
    const events = bound.memoryEvents({})[Symbol.asyncIterator]();
    setLive({ status: 'connecting', error: null, events: [] });
    let key = 0;
    (async () => {
      try {
        setLive((s) => ({ ...s, status: 'live' }));
        for (;;) {
          const next = await events.next();
          if (stopped || next.done) break;
          const { memoryEvents } = next.value;
          const event = { ...memoryEvents, key: ++key };
          setLive((s) => ({ status: 'live', error: null, events: [event, ...s.events].slice(0, MAX_EVENTS) }));
          setLiveTick((n) => n + 1);
        }
      } catch (error) {
        if (stopped) return;
        const problem = shown(error);
        setLive((s) => ({ ...s, status: 'offline', error: problem }));
        if (problem.code === 'AUTH')
          askForToken('The server refused this token for live updates: it is expired, wrong or revoked.');
      }
    })();
    return () => {
      stopped = true;
      void events.return?.(undefined);
    };
  }, [bound, viewer]);

  const report = useCallback(
    (error: unknown) => {
      const problem = shown(error);
      if (problem.code === 'AUTH')
        askForToken('The server refused this token: it is expired, wrong or revoked. Enter a valid one.');
      return problem;
    },
    [askForToken],
  );

  // The admin's first view waits for the landing user, so it never flashes an empty 'default'.
  const api: Api | null = useMemo(
    () => (viewer && (landed || !viewer.admin) ? { client: bound, viewer, user, report, liveTick } : null),
    [bound, viewer, user, report, liveTick, landed],
  );

  const saveToken = (value: string) => {
    storeToken(value);
    setPrompt(null);
    setToken(value);
    setBoot((n) => n + 1);
  };
  const clearToken = () => {
    storeToken(null);
    setToken(null);
    setViewer(null);
    setPrompt('Enter a token.');
  };
  const pick = (next: string) => {
    storeUser(next);
    setPicked(next);
    setLanded(true);
  };

  const section = route.path[0] ?? 'memories';
  const current = section === 'memory' ? 'memories' : section;

  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href={href('memories')}>
          Symbiosis Memory
        </a>
        <nav aria-label="Sections">
          {NAV.map(([key, label]) => (
            <a key={key} href={href(key)} aria-current={current === key ? 'page' : undefined}>
              {label}
            </a>
          ))}
        </nav>
        <div class="tools">
          {viewer?.admin && landed && <UserPicker client={client} user={picked} onPick={pick} />}
          {viewer && !viewer.admin && (
            <span class="space" title="the space this token reaches">
              {viewer.userId}
              {viewer.agentId ? ` / ${viewer.agentId}` : ''}
              {viewer.readOnly ? ' (read-only)' : ''}
            </span>
          )}
          <span
            class={`live live-${live.status}`}
            title={live.error ? `${live.error.code}: ${live.error.message}` : `live updates: ${live.status}`}
            role="status"
          >
            {viewer ? live.status : 'not connected'}
          </span>
          <button type="button" onClick={() => setPrompt('')}>
            {token ? 'Token ✓' : 'Token'}
          </button>
          <a href="/graphql" class="button">
            GraphiQL
          </a>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {bootError && <ErrorBox error={bootError} retry={() => setBoot((n) => n + 1)} />}
        {!viewer && !bootError && prompt === null && <Loading what="Connecting" />}
        {!viewer && prompt !== null && <p class="muted">Waiting for a token…</p>}
        {api && (
          <ApiContext.Provider value={api}>
            <Boundary resetKey={location.hash}>
              <View route={route} live={live} />
            </Boundary>
          </ApiContext.Provider>
        )}
      </main>
      {prompt !== null && (
        <TokenDialog
          reason={prompt || null}
          hasToken={token !== null}
          canClose={viewer !== null}
          onSave={saveToken}
          onClear={clearToken}
          onClose={() => setPrompt(null)}
        />
      )}
    </>
  );
}
