// Sessions, most recently active first, and one session's turns (the latest, then earlier pages).
import { useEffect, useState } from 'preact/hooks';
import type { TurnFieldsFragment } from '../../../client/src/index.ts';
import { useApi, useQuery } from '../api.ts';
import { href } from '../router.ts';
import { count, ErrorBox, Loading, Time } from '../ui.tsx';

const PAGE = 50;

export function SessionsView({ sessionId }: { sessionId: string | null }) {
  return sessionId ? <SessionView id={sessionId} /> : <SessionList />;
}

function SessionList() {
  const { liveTick } = useApi();
  const [pages, setPages] = useState(1);
  const list = useQuery((c) => c.sessions({ first: Math.min(100, PAGE * pages) }), [pages, liveTick]);
  if (list.error && !list.data) return <ErrorBox error={list.error} retry={list.reload} />;
  if (!list.data) return <Loading />;
  const { edges, totalCount } = list.data.sessions;
  return (
    <div class="view">
      <h1>Sessions</h1>
      <p class="summary">{count(totalCount, 'session')}, most recently active first.</p>
      {totalCount === 0 && <p class="empty">No sessions yet. Turns sent with addTurn start them.</p>}
      {edges.length > 0 && (
        <div class="table-wrap">
          <table class="table">
            <thead>
              <tr>
                <th scope="col">Session</th>
                <th scope="col">Turns</th>
                <th scope="col">First turn</th>
                <th scope="col">Last turn</th>
                <th scope="col">Consolidated</th>
              </tr>
            </thead>
            <tbody>
              {edges.map(({ node }) => (
                <tr key={node.id}>
                  <td>
                    <a href={href('sessions', node.id)}>{node.id}</a>
                  </td>
                  <td>{node.turnCount}</td>
                  <td>
                    <Time at={node.firstSeenAt} />
                  </td>
                  <td>
                    <Time at={node.lastSeenAt} />
                  </td>
                  <td>
                    {node.consolidatedAt ? <Time at={node.consolidatedAt} /> : <span class="muted">not yet</span>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {edges.length < totalCount && (
        <button type="button" onClick={() => setPages((n) => n + 1)} disabled={edges.length >= 100}>
          {edges.length >= 100 ? 'Showing the 100 latest' : 'Show more'}
        </button>
      )}
    </div>
  );
}

function SessionView({ id }: { id: string }) {
  const { client, report, liveTick } = useApi();
  const latest = useQuery((c) => c.session({ id, last: PAGE }), [id, liveTick]);
  const [earlier, setEarlier] = useState<{ turns: TurnFieldsFragment[]; before: string | null; more: boolean }>({
    turns: [],
    before: null,
    more: true,
  });
  const [error, setError] = useState<ReturnType<typeof report> | null>(null);
  useEffect(() => setEarlier({ turns: [], before: null, more: true }), [id]);
  if (latest.error && !latest.data) return <ErrorBox error={latest.error} retry={latest.reload} />;
  if (!latest.data) return <Loading />;
  const session = latest.data.session;
  if (!session) return <ErrorBox error={{ code: 'NOT_FOUND', message: `no session ${id} in this space` }} />;
  const page = session.turns;
  const turns = [...earlier.turns, ...page.edges.map((e) => e.node)];
  const before = earlier.before ?? page.pageInfo.startCursor;
  const more = earlier.turns.length === 0 ? page.pageInfo.hasPreviousPage : earlier.more;
  const loadEarlier = async () => {
    try {
      const { turns: older } = await client.turns({ sessionId: id, last: PAGE, before });
      setEarlier((e) => ({
        turns: [...older.edges.map((x) => x.node), ...e.turns],
        before: older.pageInfo.startCursor ?? null,
        more: older.pageInfo.hasPreviousPage,
      }));
    } catch (failure) {
      setError(report(failure));
    }
  };
  return (
    <div class="view">
      <p class="crumbs">
        <a href={href('sessions')}>Sessions</a> / {id}
      </p>
      <h1>Session {id}</h1>
      <p class="summary">
        {count(session.turnCount, 'turn')} from <Time at={session.firstSeenAt} /> to <Time at={session.lastSeenAt} />;{' '}
        {session.consolidatedAt ? (
          <>
            consolidated <Time at={session.consolidatedAt} />
          </>
        ) : (
          'not consolidated yet'
        )}
        .
      </p>
      {more && (
        <button type="button" onClick={loadEarlier}>
          Earlier turns
        </button>
      )}
      {error && <ErrorBox error={error} />}
      <ol class="turns">
        {turns.map((turn) => (
          <li key={turn.id} class={`turn turn-${turn.role.toLowerCase()}`}>
            <span class="who">{turn.name ?? turn.role.toLowerCase()}</span> <Time at={turn.at} />{' '}
            <span class="muted">turn {turn.id}</span>
            <p>{turn.text}</p>
          </li>
        ))}
      </ol>
    </div>
  );
}
