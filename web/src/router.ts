// Hash routes (#/memories, #/memory/12, #/sessions/s1...): the server serves one page, and a
// route is a link anyone can copy. Routes carry ids and filters, never the token.
import { useEffect, useState } from 'preact/hooks';

export type Route = { path: string[]; params: URLSearchParams };

export function parseHash(hash: string): Route {
  const [path = '', query = ''] = hash.replace(/^#\/?/, '').split('?', 2);
  return { path: path.split('/').filter(Boolean).map(decodeURIComponent), params: new URLSearchParams(query) };
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(location.hash));
  useEffect(() => {
    const update = () => setRoute(parseHash(location.hash));
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return route;
}

/** A link target: href('memory', 12) is '#/memory/12'; params with empty values are left out. */
export function href(...parts: (string | number | Record<string, string | number | null | undefined>)[]): string {
  const params = new URLSearchParams();
  const path: string[] = [];
  for (const part of parts) {
    if (typeof part === 'object') {
      for (const [key, value] of Object.entries(part))
        if (value !== null && value !== undefined && value !== '') params.set(key, String(value));
    } else path.push(encodeURIComponent(String(part)));
  }
  const query = params.toString();
  return `#/${path.join('/')}${query ? `?${query}` : ''}`;
}

/** Changes the route's params in place (filters), without a new history entry. */
export function replaceParams(route: Route, changes: Record<string, string | null>) {
  const params = new URLSearchParams(route.params);
  for (const [key, value] of Object.entries(changes)) {
    if (value === null || value === '') params.delete(key);
    else params.set(key, value);
  }
  const query = params.toString();
  const next = `#/${route.path.map(encodeURIComponent).join('/')}${query ? `?${query}` : ''}`;
  history.replaceState(null, '', next);
  dispatchEvent(new HashChangeEvent('hashchange'));
}
