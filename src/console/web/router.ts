// Hash routes (#/connectors/abc): deep links work with one server route.
import { useEffect, useState } from 'preact/hooks';

export function currentRoute(): string[] {
  const h = location.hash.replace(/^#\/?/, '');
  const [p] = h.split('?');
  return p.split('/').filter(Boolean).map(decodeURIComponent);
}
export function routeQuery(): URLSearchParams {
  const h = location.hash;
  const i = h.indexOf('?');
  return new URLSearchParams(i >= 0 ? h.slice(i + 1) : '');
}

export function useRoute(): string[] {
  const [r, setR] = useState(currentRoute);
  useEffect(() => {
    const f = () => setR(currentRoute());
    addEventListener('hashchange', f);
    return () => removeEventListener('hashchange', f);
  }, []);
  return r;
}

export const go = (path: string) => {
  location.hash = `#${path}`;
};
export const href = (...parts: string[]) => `#/${parts.map(encodeURIComponent).join('/')}`;
