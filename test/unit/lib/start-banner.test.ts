import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startBanner } from '../../../lib/start-banner.ts';

// What `npm start` prints (lib/cli.ts): the first line stays the one tests and supervisors read;
// in development mode the next says which address to open in a browser.

const s = suite('start banner: says where the panel is');
const facts = { url: 'http://127.0.0.1:3100', mode: 'development', driver: 'sandbox', configFile: '/repo/.relay-sandbox/config.json' };

s('development mode names the address to open in a browser, right after the listening line', () => {
  const lines = startBanner(facts);
  assert.is(lines[0], 'relay-panel listening on http://127.0.0.1:3100 (development mode, sandbox system)');
  assert.is(lines[1], '  open http://127.0.0.1:3100/ in a browser: the panel walks you through the onboarding');
  assert.ok(lines.includes('  configuration: /repo/.relay-sandbox/config.json'));
  assert.ok(lines.includes('  try: curl http://127.0.0.1:3100/api/health'));
});

s('a wildcard bind is opened on loopback', () => {
  assert.match(startBanner({ ...facts, url: 'http://0.0.0.0:4000' })[1]!, /open http:\/\/127\.0\.0\.1:4000\/ in a browser/);
  assert.match(startBanner({ ...facts, url: 'http://[::]:4000' })[1]!, /open http:\/\/\[::1\]:4000\/ in a browser/);
});

s('production mode, behind nginx and client certificates, sends no one to the local address', () => {
  const lines = startBanner({ ...facts, mode: 'production', driver: 'host' });
  assert.is(lines[0], 'relay-panel listening on http://127.0.0.1:3100 (production mode, host system)');
  assert.not.ok(lines.some((line) => line.includes('in a browser')));
});

s.run();
