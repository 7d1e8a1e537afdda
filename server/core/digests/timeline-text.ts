// The text a timeline writes, recognisable as the service's own: extraction leaves it out of a
// turn that pastes a context block back (server/core/extraction/fact-filter.ts). No imports, so
// any module may ask.

export const TIMELINE_HEADING = '## Timeline';

/**
 * Whether a line is one a timeline writes: its heading, a day's heading, or an exchange
 * ("- request → answer"). Text the service produced, sent back in a turn, is not learnt from again.
 */
export function isTimelineLine(line: string): boolean {
  const text = line.trim();
  return text === TIMELINE_HEADING || /^### \d{4}-\d{2}-\d{2}$/.test(text) || /^- .+ → .+/.test(text);
}

/** `text` without the timeline blocks in it: from a timeline heading to the next heading of its level or above. */
export function withoutTimeline(text: string): string {
  const out: string[] = [];
  let inside = false;
  for (const line of text.split('\n')) {
    if (line.trim() === TIMELINE_HEADING) inside = true;
    else if (inside && /^#{1,2} /.test(line.trim())) inside = false;
    if (!inside) out.push(line);
  }
  return out.join('\n');
}
