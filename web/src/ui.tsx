// Small shared pieces: errors with their code, badges, numbers and dates, memory rows.
import type { ComponentChildren } from 'preact';
import type { MemoryFieldsFragment } from '../../client/src/index.ts';
import type { ShownError } from './api.ts';
import { href } from './router.ts';

export function ErrorBox({ error, retry }: { error: ShownError; retry?: () => void }) {
  return (
    <div class="error" role="alert">
      <strong class="code">{error.code}</strong> <span>{error.message}</span>
      {retry && (
        <button type="button" class="link" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function Loading({ what = 'Loading' }: { what?: string }) {
  return (
    <p class="muted" aria-live="polite">
      {what}…
    </p>
  );
}

export function Badge({ kind, children, title }: { kind: string; children: ComponentChildren; title?: string }) {
  return (
    <span class={`badge badge-${kind}`} title={title}>
      {children}
    </span>
  );
}

export const num = (value: number, digits = 2) =>
  Number.isInteger(value) && digits <= 2 ? String(value) : value.toFixed(digits);
/** Always `digits` decimals: scores and confidences line up in lists. */
export const fixed = (value: number, digits = 2) => value.toFixed(digits);
export const count = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en')} ${n === 1 ? one : many}`;

export function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return date.toLocaleString('en-GB', {
    year: 'numeric',
    month: 'short',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
  });
}

export function Time({ at }: { at: string | null | undefined }) {
  return at ? <time dateTime={at}>{when(at)}</time> : <span class="muted">—</span>;
}

export const isPii = (tags: readonly string[]) => tags.includes('pii');

/** What a memory's status tab calls it: superseded is an archived memory a newer one replaced. */
export function statusBadge(memory: Pick<MemoryFieldsFragment, 'status'>, superseded?: boolean) {
  if (superseded) return <Badge kind="superseded">superseded</Badge>;
  return <Badge kind={memory.status.toLowerCase()}>{memory.status.toLowerCase()}</Badge>;
}

export function MemoryBadges({ memory, superseded }: { memory: MemoryFieldsFragment; superseded?: boolean }) {
  return (
    <span class="badges">
      <Badge kind="layer">{memory.layer.toLowerCase()}</Badge>
      {statusBadge(memory, superseded)}
      {memory.kind === 'REFLECTION' && <Badge kind="reflection">reflection</Badge>}
      {memory.protected && (
        <Badge kind="protected" title="confirmed or a reflection: never decays, exempt from cleanup">
          protected
        </Badge>
      )}
      {isPii(memory.tags) && (
        <Badge kind="pii" title="personal data (email, phone, address…)">
          PII
        </Badge>
      )}
      {memory.tags
        .filter((tag) => tag !== 'pii')
        .map((tag) => (
          <Badge key={tag} kind="tag">
            #{tag}
          </Badge>
        ))}
    </span>
  );
}

/** score · confidence · importance, with their names for screen readers and on hover. */
export function MemoryNumbers({
  memory,
}: {
  memory: Pick<MemoryFieldsFragment, 'score' | 'confidence' | 'importance'>;
}) {
  return (
    <span class="numbers">
      <span title="score (salience)">
        <span class="label">score</span> {fixed(memory.score)}
      </span>
      <span title="confidence (trust, decays)">
        <span class="label">conf</span> {fixed(memory.confidence)}
      </span>
      <span title="importance">
        <span class="label">imp</span> {fixed(memory.importance)}
      </span>
    </span>
  );
}

export function MemoryLink({ id, children }: { id: number; children?: ComponentChildren }) {
  return <a href={href('memory', id)}>{children ?? `#${id}`}</a>;
}

/** A decision's or event's detail (free JSON) as short `key: value` text. */
export function detailText(detail: unknown): string {
  if (detail === null || detail === undefined) return '';
  if (typeof detail !== 'object') return String(detail);
  return Object.entries(detail as Record<string, unknown>)
    .map(
      ([key, value]) =>
        `${key}: ${typeof value === 'number' ? num(value, Number.isInteger(value) ? 0 : 3) : typeof value === 'object' ? JSON.stringify(value) : String(value)}`,
    )
    .join(' · ');
}

export function Section({
  title,
  children,
  actions,
}: {
  title: string;
  children: ComponentChildren;
  actions?: ComponentChildren;
}) {
  return (
    <section class="card">
      <header class="card-head">
        <h2>{title}</h2>
        {actions}
      </header>
      {children}
    </section>
  );
}
