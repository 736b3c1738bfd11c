// When each alert is raised: a tunnel down for each webhook's own number of minutes and back up, a
// service not active, the disk under 10 %, a certificate close to expiry or not renewed, an agent
// revoked; each once per occurrence.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { BoxWatch } from '../../../lib/alerts/box-watch.ts';
import { TunnelWatch } from '../../../lib/alerts/tunnel-watch.ts';
import type { AlertEventName, WebhookRecord } from '../../../lib/state/schemas.ts';
import type { TunnelStatusItem } from '../../../lib/tunnels/status.ts';

interface Sent { event: AlertEventName; data: Record<string, any>; to: string[] }

function recorder(webhooks: Partial<WebhookRecord>[] = [{ id: 'all' }]) {
  const full = webhooks.map((w) => ({ url: 'http://x', secret: 's', events: ['tunnel.down', 'tunnel.up'], tunnelDownMinutes: 5, enabled: true, createdAt: '', ...w }) as WebhookRecord);
  const sent: Sent[] = [];
  return {
    sent,
    subscribers: (event: AlertEventName) => full.filter((w) => w.events.includes(event)),
    emit(event: AlertEventName, data: Record<string, unknown>, only: (w: WebhookRecord) => boolean = () => true) {
      const to = full.filter((w) => w.events.includes(event) && only(w)).map((w) => w.id);
      if (to.length) sent.push({ event, data, to });
    },
  };
}

const MIN = 60_000;
const tunnel = (connected: boolean, enabled = true): TunnelStatusItem => ({
  id: 't1', subdomain: 'app', port: 9001, enabled, connected, connectedSince: null, lastSeen: null,
  traffic: {} as TunnelStatusItem['traffic'],
});

const s = suite('alerts: what raises them');

s('tunnel.down after each webhook\'s own minutes, once; tunnel.up to those told, when the client is back', () => {
  const r = recorder([{ id: 'fast', tunnelDownMinutes: 1 }, { id: 'slow', tunnelDownMinutes: 10 }, { id: 'downOnly', tunnelDownMinutes: 1, events: ['tunnel.down'] }]);
  const w = new TunnelWatch(r);
  w.observe([tunnel(true)], 0);
  w.observe([tunnel(false)], 1 * MIN);
  w.observe([tunnel(false)], 1.5 * MIN);
  assert.equal(r.sent, [], 'not yet a minute down');
  w.observe([tunnel(false)], 2 * MIN);
  w.observe([tunnel(false)], 3 * MIN);
  assert.equal(r.sent.map((x) => [x.event, x.to]), [['tunnel.down', ['fast', 'downOnly']]]);
  assert.is(r.sent[0]!.data.tunnel.subdomain, 'app');
  assert.is(r.sent[0]!.data.downSince, new Date(1 * MIN).toISOString());
  w.observe([tunnel(false)], 11 * MIN);
  assert.equal(r.sent.map((x) => x.to), [['fast', 'downOnly'], ['slow']]);
  w.observe([tunnel(true)], 12 * MIN);
  assert.equal(r.sent.at(-1), { event: 'tunnel.up', data: { tunnel: { id: 't1', subdomain: 'app', port: 9001 }, downSince: new Date(MIN).toISOString(), downMinutes: 11 }, to: ['fast', 'slow'] });
  w.observe([tunnel(true)], 13 * MIN);
  assert.is(r.sent.length, 3, 'up once');
});

s('a disabled or deleted tunnel is not down, and its down alert gets no up', () => {
  const r = recorder([{ id: 'w', tunnelDownMinutes: 1 }]);
  const w = new TunnelWatch(r);
  w.observe([tunnel(false, false)], 0);
  w.observe([tunnel(false, false)], 10 * MIN);
  assert.equal(r.sent, []);
  w.observe([tunnel(false)], 11 * MIN);
  w.observe([tunnel(false)], 12 * MIN);
  assert.is(r.sent.length, 1);
  w.observe([], 13 * MIN);
  w.observe([tunnel(true)], 14 * MIN);
  assert.is(r.sent.length, 1, 'deleted and made again: no up for the old alert');
});

s('service.inactive once per stop, again after it was active', () => {
  const r = recorder([{ id: 'w', events: ['service.inactive'] }]);
  const b = new BoxWatch(r);
  const status = (proxy: 'active' | 'failed' | 'inactive') => [{ name: 'proxy' as const, status: proxy, uptime: '' }, { name: 'auth-portal' as const, status: 'active' as const, uptime: '' }];
  b.observeServices(status('active'));
  b.observeServices(status('failed'));
  b.observeServices(status('inactive'));
  assert.equal(r.sent.map((x) => x.data), [{ service: 'proxy', status: 'failed' }]);
  b.observeServices(status('active'));
  b.observeServices(status('failed'));
  assert.is(r.sent.length, 2);
});

s('disk.low under 10 % free, once until it is above 11 % again', () => {
  const r = recorder([{ id: 'w', events: ['disk.low'] }]);
  const b = new BoxWatch(r);
  b.observeDisk({ total: 1000, used: 890, free: 110 });
  b.observeDisk({ total: 1000, used: 905, free: 95 });
  b.observeDisk({ total: 1000, used: 950, free: 50 });
  b.observeDisk({ total: 1000, used: 895, free: 105 });
  b.observeDisk({ total: 1000, used: 905, free: 95 });
  assert.equal(r.sent.map((x) => x.data), [{ freeBytes: 95, totalBytes: 1000, freePercent: 9.5 }]);
  b.observeDisk({ total: 1000, used: 880, free: 120 });
  b.observeDisk({ total: 1000, used: 950, free: 50 });
  assert.is(r.sent.length, 2);
});

s('certificates: renewal_failed at 28 days left, expiring under 14, once per certificate; a renewed one starts afresh', () => {
  const r = recorder([{ id: 'w', events: ['cert.expiring', 'cert.renewal_failed'] }]);
  const b = new BoxWatch(r);
  const cert = (daysLeft: number, expiresAt = '2026-12-10T00:00:00.000Z') => ({ type: 'letsencrypt' as const, domain: 'panel.example.test', name: 'panel.example.test', domains: ['panel.example.test'], expiresAt, daysUntilExpiry: daysLeft, daysLeft, expiringSoon: true });
  b.observeCerts([cert(40)]);
  b.observeCerts([cert(29)]);
  assert.equal(r.sent, []);
  b.observeCerts([cert(28)]);
  b.observeCerts([cert(20)]);
  b.observeCerts([cert(13)]);
  b.observeCerts([cert(12)]);
  assert.equal(r.sent.map((x) => [x.event, x.data.daysLeft]), [['cert.renewal_failed', 28], ['cert.expiring', 13]]);
  b.observeCerts([cert(89, '2027-02-25T00:00:00.000Z')]);
  b.observeCerts([cert(13, '2027-02-25T00:00:00.000Z')]);
  assert.is(r.sent.length, 4);
  b.renewalFailed('panel.example.test', 'certbot said no');
  assert.equal(r.sent.at(-1)!.data, { name: 'panel.example.test', reason: 'certbot said no' });
});

s.run();
