// A server start loads no route's module: each loads on its route's first request
// (handlers/start-table.ts). Whatever the start-up runs (composition, plugins, the repair, the
// edge) and the first /api/health load that one route alone. Not a unit test: a real listener and
// Node's HTTP server, as the server starts.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { routes as startTable } from '../../../../handlers/start-table.ts';
import type { LazyRoute } from '../../../../lib/http/lazy-route.ts';
import { start } from '../../../../lib/main.ts';
import { timed } from '../../../helpers/timeout.ts';
import { writeOnboardedConfig } from '../../../helpers/onboarded-config.ts';

const s = suite('what a server start loads');

s('a start loads no route module; its first /api/health loads that route\'s alone', timed(15_000, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'relay-start-loads-'));
  const config = await writeOnboardedConfig(dir, { domain: 'relay.example.test' });
  const loaded: string[] = [];
  const watched = startTable.map((entry): LazyRoute => ({ ...entry, load: () => (loaded.push(`${entry.method} ${entry.path}`), entry.load()) }));
  const running = await start({ argv: ['--config', config], env: { NODE_ENV: 'production', LOG_LEVEL: 'error' }, cwd: dir, routes: watched });
  try {
    assert.equal(loaded, [], 'loaded by the start');
    const health = await fetch(`${running.url}/api/health`);
    assert.equal(await health.json(), { status: 'ok' });
    assert.equal([...new Set(loaded)], ['GET /api/health']);
  } finally {
    await running.stop();
    await rm(dir, { recursive: true, force: true });
  }
}));

s.run();
