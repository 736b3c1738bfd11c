// A page's data from one GET route, with the "not available" case: a 404 `Not found` from the
// route means the feature's API is not on this server yet.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, describe, type ApiUrl, type GetAnswer } from './api.ts';

export interface Resource<T> {
  data?: T;
  error?: string;
  unavailable: boolean;
  reload(): Promise<void>;
  /** Folds what a write answered into the data, without a second GET. */
  update(change: (data: T | undefined) => T): void;
}

/** The data of GET `path`, typed by the route's answer. */
export function useResource<U extends ApiUrl<'GET'>>(path: U | null, refreshMs?: number): Resource<GetAnswer<U>> {
  type T = GetAnswer<U>;
  const [state, setState] = useState<{ data?: T; error?: string; unavailable: boolean }>({ unavailable: false });
  const alive = useRef(true);
  const reload = useCallback(async () => {
    if (!path) return;
    try {
      const data = await api('GET', path);
      if (alive.current) setState({ data, unavailable: false });
    } catch (error) {
      if (!alive.current) return;
      const unavailable = error instanceof ApiError && error.missingRoute;
      setState((s) => ({ data: unavailable ? undefined : s.data, error: unavailable ? undefined : describe(error), unavailable }));
    }
  }, [path]);
  useEffect(() => {
    alive.current = true;
    void reload();
    const timer = refreshMs ? setInterval(() => void reload(), refreshMs) : undefined;
    return () => { alive.current = false; if (timer) clearInterval(timer); };
  }, [reload, refreshMs]);
  const update = useCallback((change: (data: T | undefined) => T) => setState((s) => ({ data: change(s.data), unavailable: false })), []);
  return { ...state, reload, update };
}
