import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { streamFindings } from '../../../../lib/install/stream-doctor.ts';
import { systemConfig } from '../../../../lib/system/config.ts';

const s = suite("doctor: the stream tunnels' listeners and firewall ports");

s('names a stream tunnel nginx does not listen for, and lists the ports the firewall must let through', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'relay-stream-doctor-'));
  try {
    const system = systemConfig({ nginx: { streamsDir: dir } });
    const none = { tcp: async () => [], udp: async () => [] };
    assert.equal(await streamFindings(system, none), { ok: true, message: 'no TCP or UDP tunnel is enabled; the firewall needs no port for them' });
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'relay-stream-tcp-22022.conf'), '');
    await writeFile(join(dir, 'relay-stream-udp-25565.conf'), '');
    const tcpOnly = { tcp: async () => [{ host: '0.0.0.0', port: 22022 }], udp: async () => [] };
    const found = await streamFindings(system, tcpOnly);
    assert.is(found.ok, false);
    assert.is(found.message, 'no listener on the public port of the stream tunnel UDP 25565; the firewall must let through 22022/tcp, 25565/udp');
    const both = { tcp: async () => [{ host: '0.0.0.0', port: 22022 }], udp: async () => [{ host: '0.0.0.0', port: 25565 }] };
    assert.equal(await streamFindings(system, both), { ok: true, message: 'nginx listens for every TCP and UDP tunnel; the firewall must let through 22022/tcp, 25565/udp (ufw allow <port>/<protocol>)' });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

s.run();
