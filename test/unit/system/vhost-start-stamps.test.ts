// A start that does not read the box: the panel stamps each vhost it writes or checks,
// and the start-up refresh, the tunnel repair's listing and the doctor's state read only a vhost
// whose file was touched since, whose record changed, which has no stamp, or which an earlier
// release made. Reads are counted at node:fs/promises itself, so no path of the adapter escapes.
import fs, { readdirSync, readFileSync } from 'node:fs';
import fsp from 'node:fs/promises';
import { mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { HelperProxy } from '../../../lib/system/proxy/helper-proxy.ts';
import { renderVhost } from '../../../lib/system/proxy/templates.ts';
import { VhostStore } from '../../../lib/system/proxy/vhost-store.ts';
import { VHOST_STAMPS_FILE, VhostStamps } from '../../../lib/system/proxy/vhost-stamps.ts';
import type { VhostSpec } from '../../../lib/system/types.ts';
import { SAMPLE_TEMPLATE_CONTEXT } from '../../helpers/template-context.ts';

interface Box {
  dir: string;
  available: string;
  enabled: string;
  routes: string;
  /** vhost files read through node:fs/promises since the last reset */
  reads: string[];
  renders: number;
  reloads: number;
}

const s = suite<{ box: Box }>('a start with nothing changed reads no vhost file', {} as { box: Box });

const realReadFile = fsp.readFile;
s.before.each(async (ctx) => {
  const dir = await mkdtemp(join(tmpdir(), 'vhost-stamps-'));
  const box: Box = { dir, available: join(dir, 'available'), enabled: join(dir, 'enabled'), routes: join(dir, 'routes'), reads: [], renders: 0, reloads: 0 };
  ctx.box = box;
  fsp.readFile = ((path: Parameters<typeof realReadFile>[0], ...rest: unknown[]) => {
    if (String(path).startsWith(box.available)) box.reads.push(String(path));
    return (realReadFile as (...args: unknown[]) => unknown)(path, ...rest);
  }) as typeof realReadFile;
  syncBuiltinESMExports();
});
s.after.each(async ({ box }) => {
  fsp.readFile = realReadFile;
  syncBuiltinESMExports();
  await rm(box.dir, { recursive: true, force: true });
});

const context = SAMPLE_TEMPLATE_CONTEXT;

const apps = (n: number, port = 20000): VhostSpec[] => Array.from({ length: n }, (_, i) => ({ kind: 'app', fqdn: `t${i}.example.test`, port: port + i }));
const specs: VhostSpec[] = [{ kind: 'ip-panel' }, { kind: 'panel', fqdn: 'panel.example.test' }, ...apps(5)];
const nameOf = (spec: VhostSpec) => (spec.kind === 'app' ? `relay-app-${spec.fqdn}.conf` : spec.kind === 'panel' ? `relay-panel-${spec.fqdn}.conf` : 'relay-ip-panel.conf');

/**
 * The proxy adapter of one process's life: a new one is a new start. `release`: the template
 * fingerprint; `edition`: a line the templates add, so two releases can render differently.
 */
function start(box: Box, release = 'release-1', edition = ''): VhostStore {
  return new VhostStore({
    availableDir: box.available,
    enabledDir: box.enabled,
    routesDir: box.routes,
    render: async (spec) => {
      box.renders++;
      return `${edition}${renderVhost(spec, context)}`;
    },
    // nginx's test as far as these files go: a vhost broken by hand fails it, whatever the change
    test: async () => {
      for (const name of readdirSync(box.available)) if (readFileSync(join(box.available, name), 'utf8').includes(BROKEN)) throw new Error(`[emerg] unknown directive in ${name}`);
    },
    reload: async () => void box.reloads++,
    stamps: new VhostStamps(join(box.dir, VHOST_STAMPS_FILE), release),
  });
}

/** A line no nginx takes: a file holding it fails the box's test. */
const BROKEN = 'broken by hand;';

/** A box whose vhosts the panel wrote in an earlier run; the counters start from zero. */
async function written(box: Box): Promise<void> {
  await start(box).apply(specs.map((spec) => ({ op: 'put', spec, enabled: true })));
  Object.assign(box, { reads: [], renders: 0, reloads: 0 });
}

s('nothing changed: the start-up refresh reads and renders no vhost, reloads nothing; the listing and the state read none either', async ({ box }) => {
  await written(box);
  const proxy = start(box);
  assert.equal(await proxy.refresh(specs), []);
  assert.equal((await proxy.list('app')).map((v) => [v.written, v.enabled, v.edited]), apps(5).map(() => [true, true, undefined]));
  assert.equal(await proxy.state('relay-ip-panel.conf'), { name: 'relay-ip-panel.conf', written: true, enabled: true });
  assert.equal([box.reads, box.renders, box.reloads], [[], 0, 0]);
  const stamps = await fsp.stat(join(box.dir, VHOST_STAMPS_FILE));
  assert.is(stamps.mode & 0o777, 0o600);
});

s('a hand edit (other size, or the same size with another mtime) is found by the listing and rewritten at the next start; then nothing is read', async ({ box }) => {
  await written(box);
  const grown = join(box.available, nameOf(specs[2]!));
  const retouched = join(box.available, nameOf(specs[3]!));
  await writeFile(grown, `${await readFile(grown, 'utf8')}# added by hand\n`);
  const text = await readFile(retouched, 'utf8');
  await writeFile(retouched, text.replace('proxy_pass http://127.0.0.1:20001;', 'proxy_pass http://127.0.0.1:20009;'));
  await utimes(retouched, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
  box.reads = [];
  const proxy = start(box);
  assert.equal((await proxy.list('app')).filter((v) => v.edited).map((v) => v.name), [nameOf(specs[2]!), nameOf(specs[3]!)].sort());
  assert.equal(box.reads.sort(), [grown, retouched].sort(), 'the listing reads the two touched files only');
  assert.equal(await proxy.refresh(specs), [nameOf(specs[2]!), nameOf(specs[3]!)]);
  assert.is(await readFile(retouched, 'utf8'), text);
  Object.assign(box, { reads: [], renders: 0 });
  assert.equal(await start(box).refresh(specs), []);
  assert.equal([box.reads, box.renders], [[], 0]);
});

s('another release (another fingerprint, other template text) rewrites every vhost; the start after reads none', async ({ box }) => {
  await written(box);
  const upgraded = start(box, 'release-2', '# release 2\n');
  assert.equal(await upgraded.refresh(specs), specs.map(nameOf));
  assert.is(new Set(box.reads).size, specs.length, 'each read (and kept for a rollback), none skipped');
  assert.is(box.reloads, 1, 'one reload for all');
  assert.match(await readFile(join(box.available, nameOf(specs[4]!)), 'utf8'), /^# release 2\n/);
  Object.assign(box, { reads: [], renders: 0 });
  assert.equal(await start(box, 'release-2', '# release 2\n').refresh(specs), []);
  assert.equal([box.reads, box.renders], [[], 0]);
});

s('a vhost without a stamp (a box from before stamps) is read and, as it was an earlier release\'s, rewritten; a record that changed is too', async ({ box }) => {
  await start(box, 'release-1', '# an earlier release\n').apply(specs.map((spec) => ({ op: 'put', spec, enabled: true })));
  await rm(join(box.dir, VHOST_STAMPS_FILE));
  box.reads = [];
  assert.equal(await start(box).refresh(specs), specs.map(nameOf));
  assert.is(new Set(box.reads).size, specs.length, 'each read (and kept for a rollback), none skipped');
  // the tunnel's record now names another port: its file is read and rewritten, no other
  box.reads = [];
  const moved = specs.map((spec) => (spec.kind === 'app' && spec.fqdn === 't0.example.test' ? { ...spec, port: 31000 } : spec));
  assert.equal(await start(box).refresh(moved), ['relay-app-t0.example.test.conf']);
  assert.equal([...new Set(box.reads)], [join(box.available, 'relay-app-t0.example.test.conf')]);
  assert.match(await readFile(join(box.available, 'relay-app-t0.example.test.conf'), 'utf8'), /127\.0\.0\.1:31000;/);
});

/** The installed panel's adapter on the box: the root helper's refresh notes the names it is asked about (and `prepared` those made ready) and rewrites them all. */
function helperProxy(box: Box, asked: string[][], prepared: string[] = []): HelperProxy {
  return new HelperProxy({ availableDir: box.available, enabledDir: box.enabled, routesDir: box.routes }, {
    send: async () => undefined,
    refresh: async (sent) => {
      asked.push(sent.map(nameOf));
      return sent.map(nameOf);
    },
    prepare: async (spec) => void prepared.push(nameOf(spec)),
    reload: async () => undefined,
  }, new VhostStamps(join(box.dir, VHOST_STAMPS_FILE), 'release-1'));
}

s('the installed panel (root helper) asks the helper about unstamped or touched vhosts only', async ({ box }) => {
  await written(box);
  await rm(join(box.available, nameOf(specs[6]!)));
  await writeFile(join(box.available, nameOf(specs[6]!)), 'server {}\n');
  const asked: string[][] = [];
  const proxy = helperProxy(box, asked);
  assert.equal(await proxy.refresh(specs), [nameOf(specs[6]!)]);
  assert.equal(asked, [[nameOf(specs[6]!)]]);
  assert.equal(box.reads, []);
});

/** Looks (stats) at vhost files while `run` runs, counted at node:fs itself. */
async function looksDuring(box: Box, run: () => Promise<void>): Promise<string[]> {
  const looks: string[] = [];
  // node:fs's exports are writable at run time; its types say read-only
  const writable = fs as { statSync: typeof fs.statSync };
  const realStatSync = fs.statSync;
  writable.statSync = ((path: fs.PathLike, ...rest: unknown[]) => {
    if (String(path).startsWith(box.available)) looks.push(String(path));
    return (realStatSync as (...args: unknown[]) => unknown)(path, ...rest);
  }) as typeof realStatSync;
  syncBuiltinESMExports();
  try {
    await run();
  } finally {
    writable.statSync = realStatSync;
    syncBuiltinESMExports();
  }
  return looks;
}

s('in one pass (the start\'s repair, then its refresh) each vhost file is looked at once; outside one, each question looks again', async ({ box }) => {
  await written(box);
  const proxy = start(box);
  const once = await looksDuring(box, () => proxy.onePass(async () => {
    await proxy.list('app');
    assert.equal(await proxy.refresh(specs), []);
  }));
  assert.equal(once.sort(), specs.map((spec) => join(box.available, nameOf(spec))).sort());
  const twice = await looksDuring(box, async () => {
    await proxy.list('app');
    await proxy.refresh(specs);
  });
  assert.is(twice.length, once.length + apps(5).length);
});

s('in one pass, a vhost the adapter writes after the listing makes the refresh look again: a hand edit made meanwhile is found', async ({ box }) => {
  await written(box);
  const edited = join(box.available, nameOf(specs[3]!));
  const proxy = start(box);
  await proxy.onePass(async () => {
    assert.equal((await proxy.list('app')).filter((v) => v.edited), []);
    await writeFile(edited, `${await readFile(edited, 'utf8')}# added by hand\n`);
    const moved = { kind: 'app' as const, fqdn: 't4.example.test', port: 31000 };
    await proxy.apply([{ op: 'put', spec: moved, enabled: true }]);
    assert.equal(await proxy.refresh(specs.map((spec) => (nameOf(spec) === nameOf(moved) ? moved : spec))), [nameOf(specs[3]!)]);
  });
  assert.not.match(await readFile(edited, 'utf8'), /added by hand/);
});

/** The vhost of `spec` edited by hand (a line added), the reads counted from then; its path. */
async function editByHand(box: Box, spec: VhostSpec, line = '# added by hand'): Promise<string> {
  const path = join(box.available, nameOf(spec));
  await writeFile(path, `${await readFile(path, 'utf8')}${line}\n`);
  box.reads = [];
  return path;
}

s('a pass that takes the stamps\' word for the tunnels (the start before it listens) looks at no stamped tunnel vhost, and at the others as ever; the touched-only refresh after it looks at each tunnel\'s and rewrites the hand edit alone', async ({ box }) => {
  await written(box);
  const tunnels = apps(5);
  const edited = await editByHand(box, tunnels[0]!);
  const proxy = start(box);
  const before = await looksDuring(box, () => proxy.onePass(async () => {
    assert.equal((await proxy.list('app')).filter((v) => v.edited), []);
    assert.equal(await proxy.refresh(specs), []);
  }, { takeStampsOf: 'app' }));
  assert.equal([...new Set(before)].sort(), specs.slice(0, 2).map((spec) => join(box.available, nameOf(spec))).sort(), 'the IP panel\'s and the panel\'s vhosts only');
  assert.equal(box.reads, []);
  assert.match(await readFile(edited, 'utf8'), /added by hand/);
  const after = await looksDuring(box, async () => assert.equal(await proxy.refresh(tunnels, { touchedOnly: true }), [nameOf(tunnels[0]!)]));
  assert.equal([...new Set(after)].sort(), tunnels.map((spec) => join(box.available, nameOf(spec))).sort());
  assert.equal([...new Set(box.reads)], [edited]);
  assert.not.match(await readFile(edited, 'utf8'), /added by hand/);
});

s('a pass that takes the stamps\' word looks at every file before it rewrites one: a vhost broken by hand goes into the same nginx test', async ({ box }) => {
  await written(box);
  const broken = await editByHand(box, specs[3]!, BROKEN);
  // a record changed while the panel was down (a crash before its vhost was written)
  const moved = { kind: 'app' as const, fqdn: 't4.example.test', port: 31000 };
  const wanted = specs.map((spec) => (nameOf(spec) === nameOf(moved) ? moved : spec));
  const proxy = start(box);
  let looks = 0;
  proxy.deferLook(async () => void looks++);
  const rewritten = await proxy.onePass(() => proxy.refresh(wanted), { takeStampsOf: 'app' });
  assert.equal(rewritten.sort(), [nameOf(specs[3]!), nameOf(moved)].sort());
  assert.not.match(await readFile(broken, 'utf8'), BROKEN);
  assert.match(await readFile(join(box.available, nameOf(moved)), 'utf8'), /127\.0\.0\.1:31000;/);
  await proxy.lookNow();
  assert.is(looks, 0, 'every file looked at in the pass: the look left for later is dropped');
});

s('a served vhost (not a tunnel\'s) edited by hand is found before the panel listens, and the tunnels\' hand edits go with it', async ({ box }) => {
  await written(box);
  const panel = await editByHand(box, specs[1]!);
  const tunnel = await editByHand(box, specs[2]!);
  const proxy = start(box);
  const rewritten = await proxy.onePass(() => proxy.refresh(specs), { takeStampsOf: 'app' });
  assert.equal(rewritten.sort(), [nameOf(specs[1]!), nameOf(specs[2]!)].sort());
  for (const file of [panel, tunnel]) assert.not.match(await readFile(file, 'utf8'), /added by hand/);
});

s('the installed panel (root helper): a pass that takes the stamps\' word asks the helper about nothing; the touched-only refresh asks about the hand edit alone', async ({ box }) => {
  await written(box);
  await editByHand(box, specs[2]!);
  const asked: string[][] = [];
  const prepared: string[] = [];
  const proxy = helperProxy(box, asked, prepared);
  assert.equal(await proxy.onePass(() => proxy.refresh(specs), { takeStampsOf: 'app' }), []);
  assert.equal(asked, []);
  prepared.length = 0;
  assert.equal(await proxy.refresh(specs, { touchedOnly: true }), [nameOf(specs[2]!)]);
  assert.equal([asked, prepared], [[[nameOf(specs[2]!)]], [nameOf(specs[2]!)]]);
});

s('a change before the start\'s look runs the look first: a tunnel vhost broken by hand does not fail the change\'s nginx test', async ({ box }) => {
  await written(box);
  const tunnels = apps(5);
  const broken = await editByHand(box, tunnels[0]!, BROKEN);
  const proxy = start(box);
  assert.equal(await proxy.onePass(() => proxy.refresh(specs), { takeStampsOf: 'app' }), []);
  let looks = 0;
  proxy.deferLook(async () => {
    looks++;
    return proxy.refresh(tunnels, { touchedOnly: true });
  });
  await proxy.apply([{ op: 'put', spec: { kind: 'app', fqdn: 't4.example.test', port: 31000 }, enabled: true }]);
  assert.not.match(await readFile(broken, 'utf8'), BROKEN);
  await proxy.lookNow();
  assert.is(looks, 1, 'once');
});

s('in the start\'s pass, a change (a missing served vhost written) comes after the look, which looks at the files it takes on their stamps\' word', async ({ box }) => {
  await written(box);
  const tunnels = apps(5);
  const broken = await editByHand(box, tunnels[0]!, BROKEN);
  await rm(join(box.available, nameOf(specs[1]!)));
  const proxy = start(box);
  proxy.deferLook(() => proxy.refresh(tunnels, { touchedOnly: true }));
  await proxy.onePass(() => proxy.apply([{ op: 'put', spec: specs[1]!, enabled: true }]), { takeStampsOf: 'app' });
  assert.not.match(await readFile(broken, 'utf8'), BROKEN);
  assert.ok(await readFile(join(box.available, nameOf(specs[1]!)), 'utf8'));
});

s('a look that fails still lets the change behind it through, and rejects when asked for', async ({ box }) => {
  await written(box);
  const proxy = start(box);
  proxy.deferLook(async () => {
    throw new Error('the look failed');
  });
  const moved = { kind: 'app' as const, fqdn: 't4.example.test', port: 31000 };
  await proxy.apply([{ op: 'put', spec: moved, enabled: true }]);
  assert.match(await readFile(join(box.available, nameOf(moved)), 'utf8'), /127\.0\.0\.1:31000;/);
  proxy.deferLook(() => {
    throw new Error('thrown at once');
  });
  let message = '';
  await proxy.lookNow().catch((error: Error) => (message = error.message));
  assert.is(message, 'thrown at once');
});

s('the installed panel (root helper): a pass that takes the stamps\' word and has a vhost to ask about looks at the tunnels\' files too, and asks about a hand edit there in the same request', async ({ box }) => {
  await written(box);
  await editByHand(box, specs[1]!);
  await editByHand(box, specs[2]!);
  const asked: string[][] = [];
  const proxy = helperProxy(box, asked);
  await proxy.onePass(() => proxy.refresh(specs), { takeStampsOf: 'app' });
  assert.equal(asked, [[nameOf(specs[1]!), nameOf(specs[2]!)]]);
});

s.run();
