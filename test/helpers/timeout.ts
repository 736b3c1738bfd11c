// uvu has no per-test timeout: network and WebSocket tests wrap their body in this.
export async function withTimeout<T>(label: string, ms: number, body: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${label}: timed out after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([body(), limit]);
  } finally {
    clearTimeout(timer);
  }
}

/** A test body with a time limit, for `test('name', timed(5000, async () => ...))`. */
export function timed(ms: number, body: () => Promise<void>): () => Promise<void> {
  return () => withTimeout('test', ms, body);
}
