// tunnel.down and tunnel.up for a TCP tunnel: a listener on its tunnel port (in the kit's socket
// table) plays the client's session.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TICK_MS } from '../../../../lib/alerts/watch.ts';
import { createTestApp, type TestApp } from '../../../../lib/testing.ts';
import { ManualClock } from '../../../helpers/manual-clock.ts';
import { startReceiver, type WebhookReceiver } from '../../../helpers/webhook-receiver.ts';

const s = suite('stream tunnels: tunnel.down and tunnel.up');
let t: TestApp;
let clock: ManualClock;
let receiver: WebhookReceiver;
s.before.each(async () => {
  clock = new ManualClock(Date.now());
  t = await createTestApp({ clock, config: { alerts: { allowPrivateTargets: true } } });
  await t.completeOnboarding();
  receiver = await startReceiver();
});
s.after.each(async () => {
  await t.close();
  await receiver.close();
});

async function tick(times = 1): Promise<void> {
  for (let i = 0; i < times; i++) {
    clock.advance(TICK_MS);
    await t.services.alertWatch.idle();
    await t.services.alerts.dispatcher.settled();
  }
}

/** chisel's reverse listener on the tunnel port; the returned function closes it */
const listen = (port: number): (() => void) => t.sockets!.hold('tcp', port);

s('a TCP tunnel whose client is gone for tunnelDownMinutes: tunnel.down naming its ports; back: tunnel.up', async () => {
  const stream = (await t.call('POST', '/api/tunnels', { body: { protocol: 'tcp', publicPort: 43022, port: 22 } })).body.tunnel;
  let close = listen(stream.tunnelPort);
  await t.call('POST', '/api/alerts/webhooks', { body: { url: receiver.url, events: ['tunnel.down', 'tunnel.up'], tunnelDownMinutes: 1 } });
  await tick();
  close();
  await tick(3);
  assert.equal(receiver.received.map((r) => r.json.event), ['tunnel.down']);
  assert.equal(receiver.received[0]!.json.data.tunnel, { id: stream.id, protocol: 'tcp', publicPort: 43022, port: 22 });
  close = listen(stream.tunnelPort);
  await tick();
  assert.equal(receiver.received.map((r) => r.json.event), ['tunnel.down', 'tunnel.up']);
  close();
});

s('/metrics: each enabled stream tunnel connected or not, and its sessions in the vhost counters', async () => {
  const stream = (await t.call('POST', '/api/tunnels', { body: { protocol: 'udp', publicPort: 43053, port: 53 } })).body.tunnel;
  t.services.traffic.record('{"v":"udp:43053","s":200,"in":64,"out":128,"t":0.01}');
  const text = await (await t.request('GET', '/metrics')).text();
  assert.match(text, 'relay_stream_tunnel_connected{tunnel="udp:43053"} 0');
  assert.match(text, 'relay_vhost_requests_total{vhost="udp:43053"} 1');
  // the tunnel's client connected: chisel holds the UDP remote on loopback
  t.sockets!.hold('udp', stream.tunnelPort);
  assert.match(await (await t.request('GET', '/metrics')).text(), 'relay_stream_tunnel_connected{tunnel="udp:43053"} 1');
});

s.run();
