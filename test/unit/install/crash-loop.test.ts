// An upgrade stops waiting for a release that crashes at start: systemd's own account of the panel's
// service (its state and NRestarts since the upgrade's restart) decides, and anything it cannot
// read leaves the decision to the wait's timeout.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { crashLoop, CRASH_LOOP_RESTARTS } from '../../../lib/install/unit-restarts.ts';
import { systemctlBox } from './systemctl-box.ts';

const s = suite('upgrade: a release that crashes at start is not waited out');

s('restarted twice by systemd since the upgrade restarted it: given up, saying why', async () => {
  const { inst, calls } = systemctlBox('activating', String(CRASH_LOOP_RESTARTS));
  assert.is(await crashLoop(inst, 'relay-panel'), `it exited at start and systemd restarted it ${CRASH_LOOP_RESTARTS} times`);
  assert.ok(calls.includes('show -p NRestarts --value relay-panel.service'), calls.join('\n'));
});

s('restarted once, or starting, or active: still waited for', async () => {
  for (const [state, restarts] of [['activating', '1'], ['activating', '0'], ['active', '0']] as const) {
    assert.is(await crashLoop(systemctlBox(state, restarts).inst, 'relay-panel.service'), null, `${state} ${restarts}`);
  }
});

s('failed (systemd gave up on it): given up at once', async () => {
  assert.is(await crashLoop(systemctlBox('failed', '0').inst, 'relay-panel'), 'systemd reports relay-panel.service failed');
});

s('NRestarts unreadable or not a number: no reason, the timeout decides', async () => {
  assert.is(await crashLoop(systemctlBox('activating', null).inst, 'relay-panel'), null);
  assert.is(await crashLoop(systemctlBox('activating', '').inst, 'relay-panel'), null);
});

s.run();
