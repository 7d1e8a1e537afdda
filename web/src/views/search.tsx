// Search as a model's retrieval sees it: hits ranked by fused score, each with the rank every
// signal (full text, entity, vector, memory) gave it; and the context a model would get for a
// session at a chosen token budget, with its size.
import { useEffect, useState } from 'preact/hooks';
import { SearchKind, type SearchQuery } from '../../../client/src/index.ts';
import { useQuery } from '../api.ts';
import { href, replaceParams, type Route } from '../router.ts';
import { Badge, ErrorBox, Loading, MemoryBadges, num, Time } from '../ui.tsx';
import { ContextPreview } from './context-preview.tsx';

const KINDS: [SearchKind, string][] = [
  [SearchKind.Fact, 'facts'],
  [SearchKind.Reflection, 'reflections'],
  [SearchKind.Turn, 'turns'],
];

export function SearchView({ route }: { route: Route }) {
  const q = route.params.get('q') ?? '';
  const kinds = (route.params
    .get('kinds')
    ?.split(',')
    .filter((k) => KINDS.some(([kind]) => kind === k)) ?? []) as SearchKind[];
  const [text, setText] = useState(q);
  useEffect(() => setText(q), [q]);
  return (
    <div class="view">
      <h1>Search</h1>
      <form
        class="filters"
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          replaceParams(route, { q: text.trim() });
        }}
      >
        <label class="field grow">
          <span>Query</span>
          <input
            type="search"
            name="q"
            value={text}
            placeholder="where does Alex live"
            onInput={(event) => setText((event.target as HTMLInputElement).value)}
          />
        </label>
        <fieldset class="checks">
          <legend>Kinds</legend>
          {KINDS.map(([kind, label]) => (
            <label key={kind}>
              <input
                type="checkbox"
                checked={kinds.length === 0 || kinds.includes(kind)}
                onChange={(event) => {
                  const on = (event.target as HTMLInputElement).checked;
                  const current = kinds.length === 0 ? KINDS.map(([k]) => k) : kinds;
                  const next = on ? [...current, kind] : current.filter((k) => k !== kind);
                  replaceParams(route, { kinds: next.length === KINDS.length ? null : next.join(',') });
                }}
              />{' '}
              {label}
            </label>
          ))}
        </fieldset>
        <button type="submit" class="primary">
          Search
        </button>
      </form>
      <p class="muted">
        Searching and building context count the memories they return as retrieved (their forgetting curve restarts), as
        for a model.
      </p>
      {q ? <Results q={q} kinds={kinds} /> : <p class="empty">Type what a model would look for.</p>}
      <ContextPreview query={q} />
    </div>
  );
}

function Results({ q, kinds }: { q: string; kinds: SearchKind[] }) {
  const results = useQuery(
    (c) => c.search({ query: q, kinds: kinds.length ? kinds : undefined, limit: 20 }),
    [q, kinds.join(',')],
  );
  if (results.error) return <ErrorBox error={results.error} retry={results.reload} />;
  if (!results.data) return <Loading what="Searching" />;
  const hits = results.data.search;
  if (hits.length === 0) return <p class="empty">Nothing found for “{q}”.</p>;
  return (
    <ol class="hits" aria-label="search results">
      {hits.map((hit, index) => (
        <Hit key={`${hit.kind}-${hit.id}`} hit={hit} rank={index + 1} />
      ))}
    </ol>
  );
}

function Hit({ hit, rank }: { hit: SearchQuery['search'][number]; rank: number }) {
  const link = hit.memory ? href('memory', hit.id) : hit.sessionId ? href('sessions', hit.sessionId) : null;
  return (
    <li class="hit">
      <span class="rank">{rank}</span>
      <div>
        <p>
          <Badge kind={`kind-${hit.kind.toLowerCase()}`}>{hit.kind.toLowerCase()}</Badge>{' '}
          {link ? <a href={link}>{hit.text}</a> : hit.text}
        </p>
        <p class="meta">
          <span title="reciprocal-rank fusion score">RRF {num(hit.score, 4)}</span>
          {hit.signals.map((s) => (
            <span key={s.signal} class="signal" title={`rank ${s.rank} in the ${s.signal.toLowerCase()} list`}>
              {s.signal.toLowerCase()} #{s.rank}
            </span>
          ))}
          <Time at={hit.at} />
          {hit.sessionId && <span class="muted">{hit.sessionId}</span>}
          {hit.memory && <MemoryBadges memory={hit.memory} />}
        </p>
      </div>
    </li>
  );
}
