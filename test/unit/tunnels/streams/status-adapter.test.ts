// The stream tunnels' client state comes from the tunnel server adapter, asked once per protocol
// for the enabled tunnels' ports: the domain reads no socket table of its own, so a system whose
// tunnel server answers otherwise (a fake, a sandbox) is what the status shows.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { StreamRecord } from '../../../../lib/state/schemas.ts';
import type { StreamContext } from '../../../../lib/tunnels/streams/context.ts';
import { StreamService } from '../../../../lib/tunnels/streams/service.ts';

const s = suite('stream status through the tunnel server adapter');

const record = (n: number, protocol: StreamRecord['protocol'], enabled = true): StreamRecord => ({
  id: `00000000-0000-4000-8000-00000000000${n}`, protocol, publicPort: 42000 + n, port: 22, tunnelPort: 61000 + n,
  allow: [], proxyProtocol: false, description: null, enabled, createdAt: `2026-01-0${n}T00:00:00.000Z`,
});

s('connected as the adapter says, per protocol; a disabled tunnel is neither asked about nor connected', async () => {
  const streams = [record(1, 'tcp'), record(2, 'udp'), record(3, 'tcp'), record(4, 'udp', false)];
  const asked: Array<[string, number[]]> = [];
  // the adapter's sessions: 61001 over TCP, 61002 and 61004 over UDP (the last one's tunnel is disabled)
  const sessions = { tcp: new Set([61001]), udp: new Set([61002, 61004]) };
  const tunnelServer = {
    connectedPorts: async (ports: readonly number[], protocol: 'tcp' | 'udp' = 'tcp') => {
      asked.push([protocol, [...ports].sort()]);
      return new Set(ports.filter((p) => sessions[protocol].has(p)));
    },
  };
  const ctx = { store: { streams: { value: streams } }, system: { tunnelServer } } as unknown as StreamContext;
  const meter = { traffic: () => ({}) as never };
  const status = await new StreamService(ctx).status(meter);
  assert.equal(status.map((x) => [x.publicPort, x.connected]), [[42004, false], [42003, false], [42002, true], [42001, true]]);
  assert.equal(asked.sort(), [['tcp', [61001, 61003]], ['udp', [61002]]]);
});

s.run();
