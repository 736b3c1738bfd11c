import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { renderPanelUnit } from '../../../lib/install/panel-unit.ts';
import { NODE_FLAGS } from '../../../lib/node-flags.ts';
// @ts-expect-error plain JS build script
import { SNAPSHOT_NODE_FLAGS, startScript } from '../../../build/snapshot.mjs';

// Every place that launches the panel passes lib/node-flags.ts: the plain-JS and JSON ones cannot
// import it, so this keeps them in step.
const s = suite('node flags at every launch point');
const root = new URL('../../../', import.meta.url);
const text = (path: string) => readFileSync(new URL(path, root), 'utf8');
const flags = NODE_FLAGS.join(' ');

s('npm start (its start script), the release launcher and the bench pass them before the bundle', () => {
  assert.match(JSON.parse(text('package.json')).scripts.start, ' dist/server-start');
  // the blob is made with them and a start from it must pass the same (node refuses it otherwise)
  assert.equal(SNAPSHOT_NODE_FLAGS, [...NODE_FLAGS]);
  assert.match(startScript(), `\nflags='${flags}'\n`);
  assert.match(text('build/release.mjs'), `exec "$node" ${flags} "$here/server.mjs"`);
  assert.match(text('test/bench/run.mjs'), `PANEL_FLAGS = ${JSON.stringify([...NODE_FLAGS]).replaceAll('"', "'")}`);
});

s('the systemd unit runs the release\'s start script, which passes them', () => {
  const unit = renderPanelUnit({ user: 'relay-panel', node: '/usr/bin/node', server: '/opt/r/server.mjs', configFile: '/etc/r/config.json', writable: ['/var/lib/r'], socket: 'r.socket' });
  assert.match(unit, 'ExecStart=/opt/r/server-start --config /etc/r/config.json');
  assert.match(startScript(), `exec "$node" $flags "$here/server.mjs" "$@"`);
});

s.run();
