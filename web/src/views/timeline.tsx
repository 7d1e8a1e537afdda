// Memory events as they happen (the memoryEvents subscription of the space on view): created,
// merged, superseded, promoted, archived, decayed, confirmed, deleted, newest first.
import type { LiveState } from '../api.ts';
import { Badge, detailText, ErrorBox, MemoryLink, Time } from '../ui.tsx';

export function TimelineView({ live }: { live: LiveState }) {
  return (
    <div class="view">
      <h1>Timeline</h1>
      <p class="summary" aria-live="polite">
        {live.status === 'live' ? 'Live: ' : live.status === 'connecting' ? 'Connecting… ' : 'Not connected. '}
        every decision on a memory of this space from the moment the page opened, newest first.
      </p>
      {live.error && <ErrorBox error={live.error} retry={() => location.reload()} />}
      {live.events.length === 0 ? (
        <p class="empty">Nothing yet. Add a turn (or run GC, decay…) and it shows up here.</p>
      ) : (
        <ol class="timeline" aria-label="memory events">
          {live.events.map((event) => (
            <li key={event.key}>
              <Time at={event.at} />{' '}
              <Badge kind={`action-${event.action.toLowerCase()}`}>{event.action.toLowerCase()}</Badge>{' '}
              <MemoryLink id={event.memoryId} /> {event.memory?.content ?? <span class="muted">(gone)</span>}
              {detailText(event.detail) && <span class="detail">{detailText(event.detail)}</span>}
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
