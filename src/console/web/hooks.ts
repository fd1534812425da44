import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export interface Async<T> {
  data: T | undefined;
  error: Error | undefined;
  loading: boolean;
  reload: () => void;
}

/** Loads on mount and when deps change; the last answer wins. */
export function useAsync<T>(fn: () => Promise<T>, deps: unknown[]): Async<T> {
  const [state, set] = useState<{ data?: T; error?: Error; loading: boolean }>({ loading: true });
  const seq = useRef(0);
  const run = useCallback(() => {
    const n = ++seq.current;
    set((s) => ({ ...s, loading: true, error: undefined }));
    fn().then(
      (data) => n === seq.current && set({ data, loading: false }),
      (error) => n === seq.current && set({ error, loading: false }),
    );
  }, deps);
  useEffect(run, [run]);
  return { ...state, reload: run } as Async<T>;
}

/** Calls `fn` every `ms` while `active`. */
export function useInterval(fn: () => void, ms: number, active: boolean) {
  const f = useRef(fn);
  f.current = fn;
  useEffect(() => {
    if (!active) return;
    const t = setInterval(() => f.current(), ms);
    return () => clearInterval(t);
  }, [ms, active]);
}
