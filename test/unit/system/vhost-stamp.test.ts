import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { stampVhost, vhostIntact } from '../../../lib/system/proxy/vhost-stamp.ts';

const s = suite('vhost stamp: what relay-panel wrote, told apart from a hand edit');
const vhost = 'server {\n    listen 0.0.0.0:443 ssl;\n    location / { proxy_pass http://127.0.0.1:8765; }\n}\n';

s('a stamped vhost is intact; any change to its text is not', () => {
  const written = stampVhost(vhost);
  assert.ok(written.startsWith(vhost));
  assert.match(written, /\n# relay-panel sha256 [0-9a-f]{64}\n$/);
  assert.ok(vhostIntact(written));
  assert.not.ok(vhostIntact(written.replace('8765', '22')), 'an edited port');
  assert.not.ok(vhostIntact(written.replace('server {', 'server {\n    # added')), 'an added line');
  assert.not.ok(vhostIntact(written.replace(/[0-9a-f]{64}/, '0'.repeat(64))), 'a forged sum');
});

s('text without the line (written before stamps) counts as intact; a missing final newline is added first', () => {
  assert.ok(vhostIntact(vhost));
  assert.ok(vhostIntact(stampVhost('server {}')));
  assert.ok(stampVhost('server {}').startsWith('server {}\n# relay-panel'));
});

s.run();
