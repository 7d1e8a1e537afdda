// The turns of each event a question compares (text/compared-events.ts) are ranked as a search
// of their own; the best of each is placed in the top ten of the question's list, so that one
// event's turns do not crowd the other's out (docs/memory.md#compared-events).

/** How many of each event's best turns are placed. */
export const EVENT_TURNS = 2;
/** The places they are kept within. */
export const EVENT_PLACES = 10;

/**
 * `order` with each event's turns in its first EVENT_PLACES: those already there stay where they
 * are; the others take the last of those places, in the events' order, and push the rest down.
 */
export function placeEventTurns(order: string[], events: string[][]): string[] {
  const head = order.slice(0, EVENT_PLACES);
  const missing = [...new Set(events.flat())].filter((id) => !head.includes(id));
  if (missing.length === 0) return order;
  const kept = head.slice(0, Math.max(0, EVENT_PLACES - missing.length));
  const placed = new Set([...kept, ...missing]);
  return [...kept, ...missing, ...order.filter((id) => !placed.has(id))];
}
