// The panel's start-up path (lib/main.ts: the tunnel repair, then the vhost refresh) on a sandbox
// box reopened with nothing changed reads no vhost file, and a hand edit made while the
// panel was down is still repaired by the next start. Reads are counted at node:fs/promises.
import fsp from 'node:fs/promises';
import { readFile, writeFile } from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { refreshVhosts } from '../../../lib/host-state/reconcile.ts';
import { sandboxPaths } from '../../../lib/system/sandbox-system.ts';
import { createTestApp, type TestApp } from '../../../lib/testing.ts';
import { createTunnel, DOMAIN, tunnelApp } from './helpers.ts';

const s = suite('the start-up path reads no vhost when nothing changed');
const realReadFile = fsp.readFile;

/** Runs the start-up repair and refresh of a reopened box; answers the vhost files read meanwhile. */
async function startUp(t: TestApp): Promise<{ reads: string[]; rewritten: string[] }> {
  const available = sandboxPaths(t.services.store.dataDir).sitesAvailable;
  const reads: string[] = [];
  fsp.readFile = ((path: Parameters<typeof realReadFile>[0], ...rest: unknown[]) => {
    if (String(path).startsWith(available)) reads.push(String(path));
    return (realReadFile as (...args: unknown[]) => unknown)(path, ...rest);
  }) as typeof realReadFile;
  syncBuiltinESMExports();
  try {
    await t.services.tunnels.repairHost();
    const { rewritten } = await refreshVhosts(t.services);
    return { reads, rewritten };
  } finally {
    fsp.readFile = realReadFile;
    syncBuiltinESMExports();
  }
}

s('a reopened box reads no vhost file; a hand edit while it was down is read and rewritten at the next start', async () => {
  const first = await tunnelApp({ durable: true });
  for (const [i, name] of ['one', 'two', 'three'].entries()) assert.is((await createTunnel(first, name, 7000 + i)).status, 201);
  await first.close({ keep: true });
  const second = await createTestApp({ dir: first.dir });
  try {
    assert.equal(await startUp(second), { reads: [], rewritten: [] });
  } finally {
    await second.close({ keep: true });
  }
  const edited = join(sandboxPaths(second.services.store.dataDir).sitesAvailable, `relay-app-two.${DOMAIN}.conf`);
  const text = await readFile(edited, 'utf8');
  await writeFile(edited, text.replace('proxy_pass http://127.0.0.1:7001;', 'proxy_pass http://127.0.0.1:22;'));
  const third = await createTestApp({ dir: first.dir });
  try {
    const { reads } = await startUp(third);
    assert.equal([...new Set(reads)], [edited], 'only the touched file');
    assert.is(await readFile(edited, 'utf8'), text);
  } finally {
    await third.close();
  }
});

s.run();
