// Building a panel starts nothing: no timer, no watcher, no traffic listener until `start()`. A
// restore builds one beside a running panel (same configuration, same traffic port), which once
// logged EADDRINUSE for the port the running panel held.
import { createSocket } from 'node:dgram';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { restore, writeBackup } from '../../../lib/backup-commands.ts';
import { composePanel } from '../../../lib/compose.ts';
import { ConfigStore, type ConfigInput } from '../../../lib/config.ts';
import { silentLogger } from '../../../lib/log.ts';
import { openStore } from '../../../lib/state/store.ts';
import { ManualClock } from '../../helpers/manual-clock.ts';

const s = suite('composePanel: build, then start');
let dir = '';
s.before.each(async () => {
  dir = await mkdtemp(join(tmpdir(), 'relay-compose-'));
});
s.after.each(() => rm(dir, { recursive: true, force: true }));

/** A clock that counts the timers asked of it. */
class CountingClock extends ManualClock {
  timers = 0;
  override every(ms: number, task: () => void): () => void {
    this.timers++;
    return super.every(ms, task);
  }
}

/** Binds 127.0.0.1:port for a moment: null when it could, else the error code. */
async function bindError(port: number): Promise<string | null> {
  const socket = createSocket('udp4');
  try {
    await new Promise<void>((resolve, reject) => socket.once('error', reject).bind(port, '127.0.0.1', () => resolve()));
    return null;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? String(error);
  } finally {
    socket.close();
  }
}

async function freeUdpPort(): Promise<number> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()));
  const { port } = socket.address();
  socket.close();
  return port;
}

const boxConfig = (dataDir: string, trafficPort: number): ConfigInput => ({
  ip: '203.0.113.10',
  domain: null,
  email: null,
  dataDir,
  onboarding: { status: 'FRESH' },
  system: { driver: 'sandbox', nginx: { trafficPort } },
});

async function build(trafficPort: number, clock: CountingClock) {
  const config = await ConfigStore.inMemory(boxConfig(join(dir, 'data'), trafficPort));
  const log = silentLogger();
  const store = await openStore(config.value.dataDir, { persistence: 'memory', log });
  return composePanel({ mode: 'production', config, store, clock, log, routes: [] });
}

s('two panels built on one traffic port bind nothing and ask for no timer; start() does both', async () => {
  const port = await freeUdpPort();
  const clock = new CountingClock();
  const first = await build(port, clock);
  const second = await build(port, clock);
  try {
    assert.is(clock.timers, 0, 'no timer before start()');
    assert.is(await bindError(port), null, 'the traffic port is still free');
    await first.start();
    assert.ok(clock.timers > 0, 'the timers run once started');
    assert.is(await bindError(port), 'EADDRINUSE', 'the started panel holds the traffic port');
  } finally {
    await second.close();
    await first.close();
  }
  assert.is(await bindError(port), null, 'close() lets the port go');
});

s('a restore builds the panel without starting it: the running panel keeps its traffic port, nothing is logged', async () => {
  const port = await freeUdpPort();
  const source = join(dir, 'source');
  await mkdir(join(source, 'data'), { recursive: true });
  const sourceConfig = await ConfigStore.create(join(source, 'config.json'), boxConfig(join(source, 'data'), port));
  const archive = join(dir, 'backup.tar.gz');
  await writeBackup(sourceConfig.file, archive);
  const targetFile = join(dir, 'target', 'config.json');
  await mkdir(join(dir, 'target'));
  await ConfigStore.create(targetFile, boxConfig(join(dir, 'target', 'data'), port));

  // the running panel's listener
  const running = createSocket('udp4');
  await new Promise<void>((resolve) => running.bind(port, '127.0.0.1', () => resolve()));
  const written: string[] = [];
  const original = process.stderr.write;
  process.stderr.write = ((chunk: string) => written.push(String(chunk)) > 0) as typeof process.stderr.write;
  try {
    assert.equal(await restore(targetFile, archive, { LOG_LEVEL: 'warn' }, dir), []);
  } finally {
    process.stderr.write = original;
    running.close();
  }
  assert.equal(written, []);
});

s.run();
