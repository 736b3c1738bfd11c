import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { start } from '../../../lib/main.ts';
import { sandboxPaths } from '../../../lib/system/sandbox-system.ts';
import { waitFor } from '../../infra/processes.ts';
import { writeOnboardedConfig } from '../../helpers/onboarded-config.ts';

const s = suite('start-up');

const tunnel = (port: number, enabled: boolean) => ({
  id: crypto.randomUUID(), subdomain: `app${port}`, fqdn: `app${port}.example.test`, port,
  description: null, enabled, createdAt: new Date(port).toISOString(),
});

s('after onboarding, start-up rewrites the tunnel server grants from the stored tunnels', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'relay-startup-'));
  await mkdir(join(dir, 'data'));
  await writeFile(join(dir, 'data', 'tunnels.json'), JSON.stringify([tunnel(4001, true), tunnel(4002, false), tunnel(4003, true)]));
  const config = await writeOnboardedConfig(dir);
  const running = await start({ argv: ['--config', config], env: { NODE_ENV: 'production', LOG_LEVEL: 'error' }, cwd: dir });
  try {
    const ports = await running.app.services.system.tunnelServer.allowedPorts();
    assert.equal([...ports].sort(), [4001, 4003]);
  } finally {
    await running.stop();
    await rm(dir, { recursive: true, force: true });
  }
});

s('a tunnel\'s vhost edited by hand while the panel was down is put back by its next start, once it listens; a start stopped before that leaves it', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'relay-startup-'));
  await mkdir(join(dir, 'data'));
  await writeFile(join(dir, 'data', 'tunnels.json'), JSON.stringify([tunnel(4001, true), tunnel(4002, true)]));
  const config = await writeOnboardedConfig(dir);
  const run = () => start({ argv: ['--config', config], env: { NODE_ENV: 'production', LOG_LEVEL: 'error' }, cwd: dir });
  const vhost = join(sandboxPaths(join(dir, 'data')).sitesAvailable, 'relay-app-app4001.example.test.conf');
  try {
    const first = await run();
    const written = await readFile(vhost, 'utf8');
    await first.stop();
    await writeFile(vhost, `${written}# edited by hand\n`);
    // stopped before its look's second: the look is dropped, so nothing writes after the stop
    const stopped = await run();
    await stopped.stop();
    await stopped.app.services.system.proxy.lookNow();
    assert.is(await readFile(vhost, 'utf8'), `${written}# edited by hand\n`);
    const second = await run();
    try {
      await waitFor('the edited vhost put back', async () => (await readFile(vhost, 'utf8')) === written, null);
    } finally {
      await second.stop();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

s('PORT chooses the port on every start, also once the sandbox configuration exists', async () => {
  const cwd = await mkdtemp(join(tmpdir(), 'relay-port-'));
  const { freePorts } = await import('../../infra/ports.ts');
  const env = { NODE_ENV: 'development', LOG_LEVEL: 'error' };
  try {
    const first = await start({ argv: [], env: { ...env, PORT: '0' }, cwd });
    await first.stop();
    const [port] = await freePorts(1);
    const second = await start({ argv: [], env: { ...env, PORT: String(port) }, cwd });
    await second.stop();
    assert.is(second.url, `http://127.0.0.1:${port}`);
    let message = '';
    await start({ argv: [], env: { ...env, PORT: 'eighty' }, cwd }).catch((e: Error) => (message = e.message));
    assert.is(message, "PORT must be a port number from 0 to 65535, not 'eighty'");
  } finally {
    await rm(cwd, { recursive: true, force: true });
  }
});

s.run();
