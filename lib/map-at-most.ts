// A bounded fan-out, shared by the start's certificate checks, the batched atomic writes, the root
// helper's TLS copies and the certificate archive's reads: enough at once to keep the thread pool
// busy, few enough that thousands of items do not open thousands of files together.

/**
 * `fn` of each item, at most `limit` running at once, the answers in the items' order. A worker
 * takes the next item as soon as its own ends (no batch waits on its slowest). After a failure no
 * further item starts; the first error is thrown once those already running have ended, so a
 * caller cleaning up after them (temp files) sees everything they did.
 */
export async function mapAtMost<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  let failure: { error: unknown } | null = null;
  const worker = async () => {
    while (failure === null && next < items.length) {
      const at = next++;
      try {
        out[at] = await fn(items[at]!, at);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), items.length) }, worker));
  if (failure !== null) throw (failure as { error: unknown }).error;
  return out;
}
