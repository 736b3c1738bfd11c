// Every GET route of handlers/index.ts once, as admin, with a sample value for each parameter: the
// status it answers, one line per route. The suite compares workerd's lines with Node's, so the
// README's list of what cannot run in workerd stays exact.
import { routes } from '../../handlers/index.ts';
import type { TestApp } from '../../lib/testing.ts';
import { examplePath, methodOf } from '../helpers/route-samples.ts';

export async function sweepGetRoutes(kit: TestApp): Promise<string[]> {
  const lines: string[] = [];
  for (const route of routes) {
    if (route.kind === 'ws' || methodOf(route) !== 'GET') continue;
    const response = await kit.fetch(examplePath(route.path), { headers: kit.as.admin() });
    // live feeds never end: the status is all that is compared
    await response.body?.cancel();
    lines.push(`${response.status} ${route.path}`);
  }
  return lines;
}
