import type { Answer } from './scenario.ts';

/**
 * The first place where `actual` differs from `expected` (Node's answers), as a sentence naming
 * the step and what differs; null when they are equal byte for byte.
 */
export function firstDifference(expected: Answer[], actual: Answer[]): string | null {
  for (let i = 0; i < Math.max(expected.length, actual.length); i++) {
    const [want, got] = [expected[i], actual[i]];
    if (!want || !got) return `answer ${i + 1}: ${want ? `missing (${want.step})` : `unexpected (${got?.step})`}`;
    for (const key of ['step', 'status', 'headers', 'body'] as const) {
      const [a, b] = [JSON.stringify(want[key]), JSON.stringify(got[key])];
      if (a !== b) return `${want.step}: ${key} ${b} instead of ${a}`;
    }
  }
  return null;
}
