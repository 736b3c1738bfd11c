// A GET route's data kept current by its WebSocket feed, which sends the whole answer again on each
// change; while the socket is down the data is read with GET every FALLBACK_MS and the socket tried again.
import { useEffect } from 'preact/hooks';
import { wsUrl, type ApiUrl, type GetAnswer, type WsUrl } from './api.ts';
import { useResource, type Resource } from './resource.ts';

const FALLBACK_MS = 30_000;

/** `livePath` is the feed of GET `path`: its messages are that route's answer. */
export function useLiveResource<U extends ApiUrl<'GET'>>(path: U, livePath: WsUrl): Resource<GetAnswer<U>> {
  type T = GetAnswer<U>;
  const resource = useResource(path, FALLBACK_MS);
  const { update } = resource;
  useEffect(() => {
    let ws: WebSocket | null = null;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let alive = true;
    const open = () => {
      ws = new WebSocket(wsUrl(livePath));
      ws.onmessage = (e) => {
        try {
          const data = JSON.parse(String(e.data)) as T;
          update(() => data);
        } catch { /* not an answer */ }
      };
      ws.onclose = () => {
        if (alive) retry = setTimeout(open, FALLBACK_MS);
      };
    };
    open();
    return () => {
      alive = false;
      clearTimeout(retry);
      ws?.close();
    };
  }, [livePath, update]);
  return resource;
}
