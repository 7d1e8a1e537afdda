// The context a model would get for a session at a chosen token budget: the markdown block, its
// size, and each item that made it in with its tokens, value and reason.
import { useState } from 'preact/hooks';
import { type ContextQuery, SearchKind } from '../../../client/src/index.ts';
import { useAction, useApi, useQuery } from '../api.ts';
import { href } from '../router.ts';
import { count, ErrorBox, num, Section } from '../ui.tsx';

type Context = ContextQuery['context'];
type Request = { sessionId: string; query: string; budget: number };

const KIND_LABEL: Record<string, string> = { FACT: 'fact', TURN: 'turn', REFLECTION: 'insight' };

type FormProps = {
  session: string;
  sessionIds: string[];
  busy: boolean;
  onSession: (id: string) => void;
  onSubmit: (budget: number) => void;
};

function ContextForm({ session, sessionIds, busy, onSession, onSubmit }: FormProps) {
  const [budget, setBudget] = useState(500);
  return (
    <form
      class="filters"
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit(budget);
      }}
    >
      <label class="field">
        <span>Session</span>
        <input
          list="context-sessions"
          value={session}
          required
          onInput={(event) => onSession((event.target as HTMLInputElement).value)}
        />
        <datalist id="context-sessions">
          {sessionIds.map((id) => (
            <option key={id} value={id} />
          ))}
        </datalist>
      </label>
      <label class="field">
        <span>Budget (tokens)</span>
        <input
          type="number"
          min={50}
          max={32000}
          step={50}
          value={budget}
          onInput={(event) => setBudget(Number((event.target as HTMLInputElement).value))}
        />
      </label>
      <button type="submit" class="primary" disabled={busy || !session}>
        Preview context
      </button>
    </form>
  );
}

function ItemText({ item }: { item: Context['items'][number] }) {
  if (item.kind !== SearchKind.Turn) return <a href={href('memory', item.id)}>{item.text}</a>;
  return item.sessionId ? <a href={href('sessions', item.sessionId)}>{item.text}</a> : item.text;
}

function ContextItems({ items }: { items: Context['items'] }) {
  return (
    <div class="table-wrap">
      <table class="table">
        <caption>What made it in, with its size and value</caption>
        <thead>
          <tr>
            <th scope="col">kind</th>
            <th scope="col">item</th>
            <th scope="col">tokens</th>
            <th scope="col">value</th>
            <th scope="col">why</th>
          </tr>
        </thead>
        <tbody>
          {items.map((item) => (
            <tr key={`${item.kind}-${item.id}`}>
              <td>{KIND_LABEL[item.kind] ?? item.kind.toLowerCase()}</td>
              <td>
                <ItemText item={item} />
                {item.supersededAt && <span class="muted"> (superseded)</span>}
              </td>
              <td>{item.tokens}</td>
              <td>{num(item.value, 3)}</td>
              <td>{item.reason.toLowerCase()}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function ContextShown({ context }: { context: Context }) {
  return (
    <>
      <p class="summary" aria-live="polite">
        <strong>{count(context.tokensUsed, 'token')}</strong> of a budget of {context.tokenBudget} ({context.tokenizer})
        · {count(context.items.length, 'item')} · {count(context.markdown.length, 'character')}
      </p>
      <pre class="markdown">{context.markdown || '(empty: nothing to add)'}</pre>
      {context.items.length > 0 && <ContextItems items={context.items} />}
    </>
  );
}

export function ContextPreview({ query }: { query: string }) {
  const { liveTick } = useApi();
  const sessions = useQuery((c) => c.sessions({ first: 50 }), [liveTick === 0]);
  const [sessionId, setSessionId] = useState('');
  const build = useAction((c, args: Request) =>
    c.context({ sessionId: args.sessionId, query: args.query || undefined, tokenBudget: args.budget }),
  );
  const [context, setContext] = useState<Context | null>(null);
  const session = sessionId || sessions.data?.sessions.edges[0]?.node.id || '';
  return (
    <Section title="Context preview">
      <ContextForm
        session={session}
        sessionIds={sessions.data?.sessions.edges.map(({ node }) => node.id) ?? []}
        busy={build.busy}
        onSession={setSessionId}
        onSubmit={async (budget) => {
          const result = await build.run({ sessionId: session, query, budget });
          if (result) setContext(result.context);
        }}
      />
      <p class="muted">
        {query
          ? `For the query “${query}”.`
          : 'For the latest user turn of the session (type a query above to steer it).'}
      </p>
      {build.error && <ErrorBox error={build.error} />}
      {context && <ContextShown context={context} />}
    </Section>
  );
}
