// The shell: the header (navigation, the user picker for the admin, live status), the token box,
// and the view of the current route; its state (viewer, picked user, live feed) is shell-state.ts's.
import { Component, type ComponentChildren } from 'preact';
import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import type { SymbiosisClient, UsersQuery } from '../../client/src/index.ts';
import { ApiContext, connect, shown, storedToken, storeToken, type Api, type LiveState, type Viewer } from './api.ts';
import { href, useRoute, type Route } from './router.ts';
import { useLiveEvents, usePickedUser, useViewer } from './shell-state.ts';
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

export function App() {
  const route = useRoute();
  const [token, setToken] = useState<string | null>(storedToken);
  const client = useMemo(() => connect(token), [token]);
  const [prompt, setPrompt] = useState<string | null>(null);
  const [boot, setBoot] = useState(0);
  const askForToken = useCallback((reason: string) => setPrompt(reason), [setPrompt]);
  const { viewer, setViewer, bootError } = useViewer({ client, token, boot, setPrompt });
  const { picked, landed, pick } = usePickedUser(client, viewer);
  const user = viewer ? (viewer.admin ? picked : (viewer.userId ?? 'default')) : picked;
  const bound = useMemo(() => (viewer?.admin ? client.forUser(picked) : client), [client, viewer, picked]);
  const { live, liveTick } = useLiveEvents({ bound, viewer, askForToken });

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

  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <TopBar
        route={route}
        viewer={viewer}
        picker={viewer?.admin && landed ? <UserPicker client={client} user={picked} onPick={pick} /> : null}
        live={live}
        hasToken={token !== null}
        onToken={() => setPrompt('')}
      />
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

/** The header: the sections, the user picker or the space the token reaches, live status, token and GraphiQL. */
function TopBar(props: {
  route: Route;
  viewer: Viewer | null;
  picker: ComponentChildren;
  live: LiveState;
  hasToken: boolean;
  onToken: () => void;
}) {
  const { viewer, live } = props;
  const section = props.route.path[0] ?? 'memories';
  const current = section === 'memory' ? 'memories' : section;
  return (
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
        {props.picker}
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
        <button type="button" onClick={props.onToken}>
          {props.hasToken ? 'Token ✓' : 'Token'}
        </button>
        <a href="/graphql" class="button">
          GraphiQL
        </a>
      </div>
    </header>
  );
}
