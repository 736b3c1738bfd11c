// WS /api/services/:name/logs over a loopback socket, on the sandbox's journals.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { sandboxControls } from '../../../lib/system/index.ts';
import { eventually, logsUrl, openLogViewer, servedPanelPerTest } from '../../helpers/service-logs.ts';
import { timed } from '../../helpers/timeout.ts';
import { refusedUpgrade } from '../../helpers/websocket.ts';

const s = suite('service logs stream');
const panel = servedPanelPerTest(s);

const sandbox = () => sandboxControls(panel.t.services.system);
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

s('a backlog of the last 100 lines, then new lines, each {timestamp, message}', timed(5000, async () => {
  for (let i = 0; i < 150; i++) sandbox().appendLog('proxy', `old ${i}`);
  const viewer = await openLogViewer(panel.port, 'proxy');
  await viewer.waitForLines(100);
  assert.equal(viewer.lines.map((l) => l.message), Array.from({ length: 100 }, (_, i) => `old ${i + 50}`));
  sandbox().appendLog('proxy', 'live');
  await viewer.waitForLines(101);
  const last = viewer.lines[100]!;
  assert.equal(Object.keys(last).sort(), ['message', 'timestamp']);
  assert.is(last.message, 'live');
  assert.match(last.timestamp, ISO);
  viewer.close();
}));

s('many viewers of one service share one follow; it ends when the last one leaves', timed(60_000, async () => {
  const viewers = await Promise.all(Array.from({ length: 20 }, () => openLogViewer(panel.port, 'tunnel-server')));
  assert.is(sandbox().listenerCount('tunnel-server'), 1);
  assert.is(panel.t.services.serviceControl.followCount(), 1);
  sandbox().appendLog('tunnel-server', 'for everyone');
  await Promise.all(viewers.map((v) => v.waitForLines(1)));
  for (const v of viewers) assert.is(v.lines.at(-1)!.message, 'for everyone');
  const other = await openLogViewer(panel.port, 'proxy');
  assert.is(panel.t.services.serviceControl.followCount(), 2, 'one follow per service');
  for (const v of viewers.slice(1)) v.close();
  await Promise.all(viewers.slice(1).map((v) => v.closed));
  await new Promise((r) => setTimeout(r, 20));
  assert.is(sandbox().listenerCount('tunnel-server'), 1, 'one viewer is still there');
  viewers[0]!.ws.terminate(); // an abrupt end (no close handshake) counts too
  await eventually('the follow ends with the last viewer', () => sandbox().listenerCount('tunnel-server') === 0);
  other.close();
  await eventually('every follow ended', () => panel.t.services.serviceControl.followCount() === 0);
}));

s('200 open/close cycles leave no follow behind', timed(60_000, async () => {
  for (let i = 0; i < 200; i++) {
    const v = await openLogViewer(panel.port, 'auth-portal');
    v.close();
    await v.closed;
  }
  await eventually('no follow left', () => sandbox().listenerCount('auth-portal') === 0 && panel.t.services.serviceControl.followCount() === 0);
}));

s('shutdown ends every follow and closes the viewers', timed(5000, async () => {
  const viewer = await openLogViewer(panel.port, 'panel');
  assert.is(sandbox().listenerCount('panel'), 1);
  await panel.t.app.close();
  assert.is((await viewer.closed).code, 1001);
  assert.is(sandbox().listenerCount('panel'), 0);
  assert.is(panel.t.services.serviceControl.followCount(), 0);
}));

s('a follow that cannot start closes the socket with 1011 and the reason', timed(5000, async () => {
  sandbox().failNext('services.follow', 'journalctl: permission denied');
  const viewer = await openLogViewer(panel.port, 'proxy');
  assert.equal(await viewer.closed, { code: 1011, reason: 'Log stream failed: journalctl: permission denied' });
  assert.is(panel.t.services.serviceControl.followCount(), 0);
}));

s('refused upgrades: unknown service 400, agent without services:read 403, with it accepted', timed(5000, async () => {
  const unknown = await refusedUpgrade(logsUrl(panel.port, 'postgres'));
  assert.is(unknown.status, 400);
  assert.is((unknown.body as { error: string }).error, 'Validation failed');
  await panel.t.addAgent('ops', ['services:write'], [], 'A1');
  await panel.t.addAgent('reader', ['services:read'], [], 'A2');
  const denied = await refusedUpgrade(logsUrl(panel.port, 'proxy'), { agent: 'ops', serial: 'A1' });
  assert.equal(denied, { status: 403, body: { error: 'Insufficient certificate capability' } });
  const reader = await openLogViewer(panel.port, 'proxy', { agent: 'reader', serial: 'A2' });
  reader.close();
}));

s.run();
