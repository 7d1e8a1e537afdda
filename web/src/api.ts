// The inspector's only way to the server: the typed client (client/src) over /graphql on the
// page's own origin, with the token kept in this tab's sessionStorage (never in a URL, never in
// localStorage). Hooks turn its calls into state for the views.
import { createContext } from 'preact';
import { useCallback, useContext, useEffect, useRef, useState } from 'preact/hooks';
import {
  createClient,
  SymbiosisError,
  type MemoryEventsSubscription,
  type SymbiosisClient,
  type ViewerQuery,
} from '../../client/src/index.ts';

/** sessionStorage key of the token (GraphiQL at /graphql reads the same key to prefill its headers). */
export const TOKEN_KEY = 'sm.token';
const USER_KEY = 'sm.user';

const session = {
  get(key: string): string | null {
    try {
      return sessionStorage.getItem(key);
    } catch {
      return null;
    }
  },
  set(key: string, value: string | null) {
    try {
      if (value === null) sessionStorage.removeItem(key);
      else sessionStorage.setItem(key, value);
    } catch {
      // Storage disabled: the value lives as long as the page.
    }
  },
};

export const storedToken = () => session.get(TOKEN_KEY);
export const storeToken = (token: string | null) => session.set(TOKEN_KEY, token);
export const storedUser = () => session.get(USER_KEY);
export const storeUser = (user: string | null) => session.set(USER_KEY, user);

export const endpoint = () => new URL('/graphql', location.href).href;

export function connect(token: string | null): SymbiosisClient {
  return createClient({ url: endpoint(), token: token ?? undefined, retryAttempts: 3 });
}

export type Viewer = ViewerQuery['viewer'];

/** An error as the page shows it: the API's code (or the client's NETWORK / AUTH) and its message. */
export type ShownError = { code: string; message: string };

export function shown(error: unknown): ShownError {
  if (error instanceof SymbiosisError)
    return { code: error.code ?? (error.status ? `HTTP ${error.status}` : 'ERROR'), message: error.message };
  // A WebSocket closed by the server: graphql-ws hands over the CloseEvent.
  if (
    typeof error === 'object' &&
    error !== null &&
    'code' in error &&
    typeof (error as CloseEvent).code === 'number' &&
    'reason' in error
  ) {
    const { code, reason } = error as CloseEvent;
    if (code === 4403 || code === 4401)
      return { code: 'AUTH', message: 'the server refused the token for live updates' };
    return { code: `WS ${code}`, message: reason || 'the live connection closed' };
  }
  return { code: 'ERROR', message: error instanceof Error ? error.message : String(error) };
}

export type LiveEvent = MemoryEventsSubscription['memoryEvents'] & { key: number };
export type LiveState = { status: 'connecting' | 'live' | 'offline'; error: ShownError | null; events: LiveEvent[] };

export type Api = {
  /** The client bound to the space on view (the picked user for the admin, the token's own otherwise). */
  client: SymbiosisClient;
  viewer: Viewer;
  /** The user whose memory is on view. */
  user: string;
  /** Reports an error from a call: AUTH opens the token box, others are the caller's to show. */
  report(error: unknown): ShownError;
  /** Live memory events of the space: a counter that moves with each one (views reload on it). */
  liveTick: number;
};

export const ApiContext = createContext<Api | null>(null);

export function useApi(): Api {
  const api = useContext(ApiContext);
  if (!api) throw new Error('useApi outside the app');
  return api;
}

export type Loaded<T> = { data: T | null; error: ShownError | null; loading: boolean; reload: () => void };

/**
 * Runs `load` with the client when `deps` change (and on reload()), keeping the last data while
 * a new call runs; answers that arrive after a newer call started are dropped.
 */
export function useQuery<T>(load: (client: SymbiosisClient) => Promise<T>, deps: unknown[]): Loaded<T> {
  const { client, report } = useApi();
  const [state, setState] = useState<{ data: T | null; error: ShownError | null; loading: boolean }>({
    data: null,
    error: null,
    loading: true,
  });
  const [nonce, setNonce] = useState(0);
  const latest = useRef(0);
  useEffect(() => {
    const call = ++latest.current;
    setState((s) => ({ ...s, loading: true }));
    load(client).then(
      (data) => call === latest.current && setState({ data, error: null, loading: false }),
      (error: unknown) =>
        call === latest.current && setState((s) => ({ data: s.data, error: report(error), loading: false })),
    );
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [client, nonce, ...deps]);
  const reload = useCallback(() => setNonce((n) => n + 1), []);
  return { ...state, reload };
}

/** A mutation under way or done: `run(...)` resolves with its result, or null after an error (kept in `error`). */
export type Action<A extends unknown[], T> = {
  busy: boolean;
  error: ShownError | null;
  run: (...args: A) => Promise<T | null>;
};

/** A mutation: run(...) resolves with its result, or null after an error (kept in `error`). */
export function useAction<A extends unknown[], T>(
  act: (client: SymbiosisClient, ...args: A) => Promise<T>,
): Action<A, T> {
  const { client, report } = useApi();
  const [state, setState] = useState<{ busy: boolean; error: ShownError | null }>({ busy: false, error: null });
  const run = async (...args: A): Promise<T | null> => {
    setState({ busy: true, error: null });
    try {
      const result = await act(client, ...args);
      setState({ busy: false, error: null });
      return result;
    } catch (error) {
      setState({ busy: false, error: report(error) });
      return null;
    }
  };
  return { ...state, run };
}
