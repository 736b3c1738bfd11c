// SIGKILLs during a create/delete storm once left vhosts without records (most
// still enabled) and enabled records without vhosts. The server runs as a child process on the
// sandbox driver and is killed at random moments; every start repairs the host from the records,
// so after the storm and a final restart nginx and the authfile match the records exactly.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigSchema } from '../../../../lib/config.ts';
import type { TunnelRecord } from '../../../../lib/state/schemas.ts';
import { openStore } from '../../../../lib/state/store.ts';
import { createSystem } from '../../../../lib/system/index.ts';
import type { System } from '../../../../lib/system/types.ts';
import { callerHeaders } from '../../../../lib/testing.ts';
import { withTimeout } from '../../../helpers/timeout.ts';
import { startListening, type ListeningServer } from '../../../helpers/listening-server.ts';
import { onboardedConfig, writeOnboardedConfig } from '../../../helpers/onboarded-config.ts';

const cli = fileURLToPath(new URL('../../../../lib/cli.ts', import.meta.url));
const register = fileURLToPath(new URL('../../../helpers/register.mjs', import.meta.url));
const s = suite('tunnels: crash storm (sandbox)');

const ROUNDS = 8;
const WORKERS = 4;
const DOMAIN = 'example.test';
const ADMIN = { ...callerHeaders('admin'), 'content-type': 'application/json' };

function startServer(dir: string): Promise<ListeningServer> {
  return startListening(process.execPath, ['--import', register, cli, '--config', join(dir, 'config.json')], {
    cwd: dir,
    env: { NODE_ENV: 'production', LOG_LEVEL: 'error', PORT: '0' },
  });
}

/**
 * Creates, deletes and disables tunnels from several workers until the server dies; `onCreated`
 * hears of each tunnel created.
 */
function storm(server: ListeningServer, next: () => number, onCreated: () => void): Promise<void> {
  let alive = true;
  void server.exited.then(() => (alive = false));
  const call = (method: string, path: string, body?: unknown) =>
    fetch(`${server.url}${path}`, { method, headers: ADMIN, body: body === undefined ? undefined : JSON.stringify(body) }).then(
      async (r) => ({ status: r.status, body: await r.json().catch(() => null) }),
      () => null,
    );
  const worker = async () => {
    while (alive) {
      const n = next();
      const created = await call('POST', '/api/tunnels', { subdomain: `s${n}`, port: 20000 + n });
      if (created?.status !== 201) continue;
      onCreated();
      const id = created.body.tunnel.id as string;
      const dice = Math.random();
      if (dice < 0.5) await call('DELETE', `/api/tunnels/${id}`);
      else if (dice < 0.75) await call('PATCH', `/api/tunnels/${id}`, { enabled: false });
    }
  };
  return Promise.all(Array.from({ length: WORKERS }, worker)).then(() => undefined);
}

interface Drift {
  orphans: string[];
  missing: string[];
  strayLinks: string[];
  grants: { expected: number[]; actual: number[] };
}

/** How the host differs from the records (read with the server stopped). */
async function driftOf(dir: string, system: System): Promise<Drift> {
  // the records as the next start loads them: the snapshot plus the journal of changes since
  const records = [...(await openStore(join(dir, 'data'))).tunnels.value];
  const nameOf = (t: TunnelRecord) => system.proxy.vhostName({ kind: 'app', fqdn: t.fqdn, port: t.port });
  const vhosts = new Map((await system.proxy.list('app')).map((v) => [v.name, v]));
  const named = new Set(records.map(nameOf));
  return {
    orphans: [...vhosts.keys()].filter((name) => !named.has(name)),
    missing: records.filter((t) => t.enabled && !(vhosts.get(nameOf(t))?.written && vhosts.get(nameOf(t))?.enabled)).map(nameOf),
    strayLinks: records.filter((t) => !t.enabled && vhosts.get(nameOf(t))?.enabled).map(nameOf),
    grants: {
      expected: records.filter((t) => t.enabled).map((t) => t.port).sort(),
      actual: [...(await system.tunnelServer.allowedPorts())].sort(),
    },
  };
}

s(`SIGKILL during a create/delete storm, ${ROUNDS} times: after a restart no orphan and no missing vhost`, () =>
  withTimeout('crash storm', 240_000, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'relay-crash-storm-'));
    const configOptions = { ip: '127.0.0.1', domain: DOMAIN, system: { driver: 'sandbox' } };
    await writeOnboardedConfig(dir, configOptions);
    let counter = 0;
    const drifts: Drift[] = [];
    try {
      const system = createSystem(ConfigSchema.parse(onboardedConfig(dir, configOptions)).system, { dataDir: join(dir, 'data') });
      for (let round = 0; round < ROUNDS; round++) {
        const server = await startServer(dir);
        // the kill falls while the storm is under way, not while a slow start still warms up
        let firstCreate!: () => void;
        const underWay = new Promise<void>((resolve) => (firstCreate = resolve));
        const stormDone = storm(server, () => counter++, () => firstCreate());
        await underWay;
        await new Promise((r) => setTimeout(r, 100 + Math.random() * 600));
        server.child.kill('SIGKILL');
        assert.is((await server.exited).signal, 'SIGKILL');
        await stormDone;
        drifts.push(await driftOf(dir, system));
      }
      const server = await startServer(dir);
      server.child.kill('SIGTERM');
      await server.exited;
      const after = await driftOf(dir, system);
      const found = drifts.reduce((sum, d) => sum + d.orphans.length + d.missing.length + d.strayLinks.length, 0);
      console.log(`  crash storm: ${counter} creates, host out of step ${found} times across ${ROUNDS} kills`);
      assert.ok(found > 0, 'the kills never left the host out of step: the storm exercised nothing');
      assert.equal(after.orphans, [], 'orphan vhosts');
      assert.equal(after.missing, [], 'enabled tunnels without a linked vhost');
      assert.equal(after.strayLinks, [], 'disabled tunnels still linked');
      assert.equal(after.grants.actual, after.grants.expected, 'authfile grants');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }),
);

s.run();
