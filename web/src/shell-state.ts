// The shell's state, one hook per concern: who the token is (viewer), whose memory is on view
// (the admin's pick, first landing on the most recently active user), and the live event feed.
import { useEffect, useState } from 'preact/hooks';
import type { SymbiosisClient } from '../../client/src/index.ts';
import { type LiveState, type ShownError, shown, storedUser, storeUser, type Viewer } from './api.ts';

const MAX_EVENTS = 500;

/** Who the token is, asked again on a new client or `boot`; an AUTH refusal asks for a token. */
export function useViewer(options: {
  client: SymbiosisClient;
  token: string | null;
  boot: number;
  setPrompt: (reason: string | null) => void;
}) {
  const { client, token, boot, setPrompt } = options;
  const [viewer, setViewer] = useState<Viewer | null>(null);
  const [bootError, setBootError] = useState<ShownError | null>(null);
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
          setPrompt(
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
  return { viewer, setViewer, bootError };
}

/** The user an admin has on view: the stored pick, or else the one with the latest activity. */
export function usePickedUser(client: SymbiosisClient, viewer: Viewer | null) {
  const [picked, setPicked] = useState<string>(() => storedUser() ?? 'default');
  // Nobody picked yet: the admin lands on the user with the latest activity, not an empty 'default'.
  const [landed, setLanded] = useState(() => storedUser() !== null);
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
  const pick = (next: string) => {
    storeUser(next);
    setPicked(next);
    setLanded(true);
  };
  return { picked, landed, pick };
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

/** Live memory events of the space on view, for the timeline and the lists; `liveTick` counts them. */
export function useLiveEvents(options: {
  bound: SymbiosisClient;
  viewer: Viewer | null;
  askForToken: (reason: string) => void;
}) {
  const { bound, viewer, askForToken } = options;
  const [live, setLive] = useState<LiveState>({ status: 'connecting', error: null, events: [] });
  const [liveTick, setLiveTick] = useState(0);
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
  return { live, liveTick };
}
