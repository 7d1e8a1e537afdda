// A list that renders only the rows in view (plus a margin), so 10 000 rows scroll as smoothly as
// 10. Rows have one fixed height; near the end it asks for more (the next page of a connection).
import type { ComponentChildren } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';

const OVERSCAN = 8;

export function VirtualList<T>(props: {
  items: readonly T[];
  rowHeight: number;
  row: (item: T, index: number) => ComponentChildren;
  /** Called when the last rows come into view and more may exist. */
  onEnd?: () => void;
  label: string;
  /** Changes when the list is a different one (new filters): scroll back to the top. */
  resetKey?: string;
}) {
  const { items, rowHeight, row, onEnd, label, resetKey } = props;
  const box = useRef<HTMLDivElement>(null);
  const [view, setView] = useState({ top: 0, height: 600 });

  useLayoutEffect(() => {
    const element = box.current;
    if (!element) return;
    const measure = () => setView({ top: element.scrollTop, height: element.clientHeight });
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    element.addEventListener('scroll', measure, { passive: true });
    return () => {
      observer.disconnect();
      element.removeEventListener('scroll', measure);
    };
  }, []);

  useEffect(() => {
    if (box.current) box.current.scrollTop = 0;
  }, [resetKey]);

  const first = Math.max(0, Math.floor(view.top / rowHeight) - OVERSCAN);
  const last = Math.min(items.length, Math.ceil((view.top + view.height) / rowHeight) + OVERSCAN);

  useEffect(() => {
    if (onEnd && last >= items.length - OVERSCAN) onEnd();
  }, [last, items.length, onEnd]);

  const shown = [];
  for (let index = first; index < last; index++) {
    shown.push(
      <li
        key={index}
        class="vrow"
        style={{ top: `${index * rowHeight}px`, height: `${rowHeight}px` }}
        aria-setsize={items.length}
        aria-posinset={index + 1}
      >
        {row(items[index]!, index)}
      </li>,
    );
  }
  return (
    <div class="vlist" ref={box} tabIndex={-1}>
      <ul aria-label={label} style={{ height: `${items.length * rowHeight}px` }}>
        {shown}
      </ul>
    </div>
  );
}
