// The panel's start-up path (lib/main.ts: the tunnel repair, then the vhost refresh) on a sandbox
// box reopened with nothing changed reads no vhost file, and a hand edit made while the
// panel was down is still repaired by the next start. Reads are counted at node:fs/promises.
import fsp from 'node:fs/promises';
import { lstat, readFile, rm, writeFile } from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { reconcileAtStart, refreshVhosts } from '../../../lib/host-state/reconcile.ts';
import { sandboxControls, sandboxPaths } from '../../../lib/system/sandbox-system.ts';
import { createTestApp, type TestApp } from '../../../lib/testing.ts';
import { createTunnel, DOMAIN, tunnelApp } from './helpers.ts';

const s = suite('the start-up path reads no vhost when nothing changed');
const realReadFile = fsp.readFile;

/** Runs `during` with the vhost files read through node:fs/promises counted; answers them. */
async function readsDuring<T>(available: string, during: () => Promise<T>): Promise<{ reads: string[]; result: T }> {
  const reads: string[] = [];
  fsp.readFile = ((path: Parameters<typeof realReadFile>[0], ...rest: unknown[]) => {
    if (String(path).startsWith(available)) reads.push(String(path));
    return (realReadFile as (...args: unknown[]) => unknown)(path, ...rest);
  }) as typeof realReadFile;
  syncBuiltinESMExports();
  try {
    return { reads, result: await during() };
  } finally {
    fsp.readFile = realReadFile;
    syncBuiltinESMExports();
  }
}

/** Runs the start-up repair and refresh of a reopened box; answers the vhost files read meanwhile. */
async function startUp(t: TestApp): Promise<{ reads: string[]; rewritten: string[] }> {
  const available = sandboxPaths(t.services.store.dataDir).sitesAvailable;
  const { reads, result } = await readsDuring(available, async () => {
    await t.services.tunnels.repairHost();
    return (await refreshVhosts(t.services)).rewritten;
  });
  return { reads, rewritten: result };
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
  await writeFile(edited, text.replace(`two.${DOMAIN} 7001;`, `two.${DOMAIN} 22;`));
  assert.is.not(await readFile(edited, 'utf8'), text);
  const third = await createTestApp({ dir: first.dir });
  try {
    const { reads } = await startUp(third);
    assert.equal([...new Set(reads)], [edited], 'only the touched file');
    assert.is(await readFile(edited, 'utf8'), text);
  } finally {
    await third.close();
  }
});

/**
 * A box of three tunnels, closed, whose tunnels `edited` (and `alsoEdited`) have their vhost then edited by hand:
 * answers its dir, the first one's file and the panel's text of it, and each edited one's by name.
 */
async function boxWithHandEdit(edited: string, ...alsoEdited: string[]): Promise<{ dir: string; file: string; text: string; ids: Record<string, string>; edits: Record<string, { file: string; text: string }> }> {
  const first = await tunnelApp({ durable: true });
  const ids: Record<string, string> = {};
  for (const [i, name] of ['one', 'two', 'three'].entries()) {
    const created = await createTunnel(first, name, 7000 + i);
    assert.is(created.status, 201);
    ids[name] = created.body.tunnel.id;
  }
  await first.close({ keep: true });
  const edits: Record<string, { file: string; text: string }> = {};
  for (const name of [edited, ...alsoEdited]) {
    const file = join(sandboxPaths(first.services.store.dataDir).sitesAvailable, `relay-app-${name}.${DOMAIN}.conf`);
    const text = await readFile(file, 'utf8');
    await writeFile(file, `${text}# edited by hand\n`);
    edits[name] = { file, text };
  }
  return { dir: first.dir, ...edits[edited]!, ids, edits };
}

s('the start takes a stamped vhost on its stamp\'s word before it listens, and its look after repairs a hand edit made while it was down', async () => {
  const box = await boxWithHandEdit('two');
  const t = await createTestApp({ dir: box.dir });
  try {
    const available = sandboxPaths(t.services.store.dataDir).sitesAvailable;
    const before = await readsDuring(available, () => reconcileAtStart(t.services));
    assert.equal(before.reads, [], 'no stamped vhost is read before the panel listens');
    assert.equal(before.result.rewritten, []);
    assert.match(await readFile(box.file, 'utf8'), '# edited by hand');
    const after = await readsDuring(available, () => t.services.system.proxy.lookNow());
    assert.equal([...new Set(after.reads)], [box.file], 'only the touched file');
    assert.is(await readFile(box.file, 'utf8'), box.text);
  } finally {
    await t.close();
  }
});

s('a tunnel change before the start\'s look runs the look first: the hand edits are repaired, and the change stands', async () => {
  const box = await boxWithHandEdit('two', 'three');
  const { file: three, text: threeText } = box.edits.three!;
  const t = await createTestApp({ dir: box.dir });
  try {
    await reconcileAtStart(t.services);
    // after the panel listens, before its look's second: tunnel two moves to another port
    const moved = await t.call('PATCH', `/api/tunnels/${box.ids.two}/settings`, { body: { port: 7100 } });
    assert.is(moved.status, 200, JSON.stringify(moved.body));
    assert.is(await readFile(three, 'utf8'), threeText, 'the look ran before the change');
    const changed = await readFile(box.file, 'utf8');
    assert.match(changed, `two.${DOMAIN} 7100;`);
    assert.not.match(changed, '# edited by hand');
    await t.services.system.proxy.lookNow();
    assert.is(await readFile(box.file, 'utf8'), changed, 'the request\'s vhost stays');
  } finally {
    await t.close();
  }
});

s('a start whose tunnel repair changes something runs the look first: a hand edit is repaired before the panel listens', async () => {
  const box = await boxWithHandEdit('two');
  const link = join(sandboxPaths(join(box.dir, 'data')).routes, `relay-app-one.${DOMAIN}.conf`);
  await rm(link);
  const t = await createTestApp({ dir: box.dir });
  try {
    await reconcileAtStart(t.services);
    assert.ok(await lstat(link), 'the link put back');
    assert.is(await readFile(box.file, 'utf8'), box.text, 'the hand edit repaired before the listen');
    assert.is(sandboxControls(t.services.system).eventsOf('proxy.reload').length, 2, 'the look\'s change, then the repair\'s');
  } finally {
    await t.close();
  }
});

s('a stream server change before the start\'s look runs the look first: its nginx test reads the tunnels\' vhosts too', async () => {
  const box = await boxWithHandEdit('two');
  const t = await createTestApp({ dir: box.dir });
  try {
    await reconcileAtStart(t.services);
    const created = await t.call('POST', '/api/tunnels', { body: { protocol: 'tcp', publicPort: 42022, port: 22 } });
    assert.is(created.status, 201, JSON.stringify(created.body));
    assert.is(await readFile(box.file, 'utf8'), box.text, 'the look ran before the stream change');
  } finally {
    await t.close();
  }
});

s('a stop before the start\'s look forgets it: a change after that does not start it', async () => {
  const box = await boxWithHandEdit('two', 'three');
  const three = box.edits.three!.file;
  const t = await createTestApp({ dir: box.dir });
  try {
    await reconcileAtStart(t.services);
    await t.services.system.proxy.dropLook();
    const moved = await t.call('PATCH', `/api/tunnels/${box.ids.two}/settings`, { body: { port: 7100 } });
    assert.is(moved.status, 200, JSON.stringify(moved.body));
    await t.services.system.proxy.lookNow();
    assert.match(await readFile(three, 'utf8'), '# edited by hand');
  } finally {
    await t.close();
  }
});

s.run();
