// Socket activation: the panel takes the listening socket systemd passes, and only its own (the
// restart that keeps every request is measured on a real systemd in test/system).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { takeListenFd } from '../../../lib/node/systemd-socket.ts';

const s = suite('systemd socket activation');

s('LISTEN_FDS for this process: descriptor 3, and the variables are gone for the programs it runs', () => {
  const env: NodeJS.ProcessEnv = { LISTEN_PID: '42', LISTEN_FDS: '1', LISTEN_FDNAMES: 'relay-panel.socket', PATH: '/bin' };
  assert.is(takeListenFd(env, 42), 3);
  assert.equal(env, { PATH: '/bin' });
});

s('variables meant for another process, or no descriptor, are not taken (and still removed)', () => {
  for (const env of [{ LISTEN_PID: '41', LISTEN_FDS: '1' }, { LISTEN_PID: '42', LISTEN_FDS: '0' }, { LISTEN_PID: '42', LISTEN_FDS: 'x' }, {}] as NodeJS.ProcessEnv[]) {
    assert.is(takeListenFd(env, 42), null, JSON.stringify(env));
    assert.equal(env, {});
  }
});

s.run();
