// The tunnel poll's push for traffic, with a tunnel server that answers when the test says: lines
// counted while a poll awaits the connected ports are told by the next poll, not by that one (a slow
// answer on a loaded machine once made the live-status test see a push before its poll).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createLogger } from '../../../lib/log.ts';
import type { TunnelRecord } from '../../../lib/state/schemas.ts';
import { POLL_MS, TunnelStatus } from '../../../lib/tunnels/status.ts';
import { TrafficMeter } from '../../../lib/traffic/meter.ts';
import { ManualClock } from '../../helpers/manual-clock.ts';

const s = suite('tunnels: status poll and traffic');
const tunnel = { id: 't1', subdomain: 'a', fqdn: 'a.example.test', port: 9000, enabled: true } as TunnelRecord;
const line = '<190>Nov 27 05:28:33 relay: {"v":"app:a.example.test","s":200,"in":1,"out":1,"t":0.001,"u":"200"}';

s('lines counted while a poll awaits the tunnel server are told by the next poll, once', async () => {
  const start = Date.parse('2026-11-27T10:00:01Z');
  const clock = new ManualClock(start);
  const meter = new TrafficMeter(clock);
  meter.know(new Set(['app:a.example.test']));
  let answer: (ports: Set<number>) => void = () => {};
  const server = { connectedPorts: () => new Promise<Set<number>>((resolve) => (answer = resolve)) };
  const status = new TunnelStatus(() => [tunnel], server, clock, createLogger({ write: (l) => assert.unreachable(l) }), meter);
  status.start();
  const told: Array<{ tunnels: Array<{ traffic: { lastMinute: { requests: number } } }> }> = [];
  status.subscribe((json) => told.push(JSON.parse(json)));
  const poll = async (during: () => void = () => {}) => {
    clock.advance(POLL_MS);
    during();
    answer(new Set());
    await new Promise((resolve) => setImmediate(resolve));
  };
  try {
    await poll();
    assert.is(told.length, 1, 'the new tunnel');
    await poll(() => {
      for (let i = 0; i < 3; i++) meter.record(line);
    });
    assert.is(told.length, 1, 'the poll that was waiting on the server does not tell the lines');
    await poll();
    assert.is(told.length, 2, 'the next one does');
    assert.is(told[1]!.tunnels[0]!.traffic.lastMinute.requests, 3);
    await poll();
    assert.is(told.length, 2, 'once');
  } finally {
    status.close();
  }
});

s.run();
