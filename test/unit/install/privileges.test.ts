import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { privilegedCommands, renderHelperLauncher, renderSudoers, renderWrapper } from '../../../lib/install/privileges.ts';
import { systemConfig } from '../../../lib/system/config.ts';

// a named suite of its own: uvu's shared default `test` would mix the files a worker runs
const test = suite('installer privileges: sudoers and launchers');

const config = systemConfig({ driver: 'host', nginx: { prefix: '/srv/nginx', vhostHelper: '/opt/relay-panel/bin/relay-panel-vhosts' } });
const commands = privilegedCommands(config);
const joined = commands.map((argv) => argv.join(' '));

test('the granted lines are exact: nginx test and reload, the vhost helper, the four units, the renewal timer; no stop of the panel', () => {
  assert.ok(joined.includes('/usr/sbin/nginx -p /srv/nginx -c /etc/nginx/nginx.conf -t -q'));
  assert.ok(joined.includes('/usr/sbin/nginx -p /srv/nginx -c /etc/nginx/nginx.conf -s reload'));
  for (const unit of ['nginx', 'chisel', 'authelia', 'relay-panel']) {
    assert.ok(joined.includes(`/usr/bin/systemctl restart ${unit}`), unit);
    assert.ok(joined.includes(`/usr/bin/systemctl is-active ${unit}`), unit);
  }
  assert.not.ok(joined.includes('/usr/bin/systemctl stop relay-panel'));
  assert.ok(joined.includes('/usr/bin/systemctl enable --now certbot.timer'));
  // vhosts: the root helper's one action, its request on stdin
  assert.equal(joined.filter((l) => l.includes('relay-panel-vhosts')), ['/opt/relay-panel/bin/relay-panel-vhosts apply']);
  assert.not.ok(privilegedCommands(systemConfig({ driver: 'host' })).some((argv) => argv.includes('apply')), 'no helper, no line');
  // nothing open-ended: no wildcard, no shell, no certbot (it runs as the panel user)
  for (const line of joined) assert.not.match(line, /[*?[\]]|ALL|\/bin\/sh|certbot /, line);
  assert.is(new Set(joined).size, joined.length);
});

test('an argument sudoers cannot take literally is refused, not written', () => {
  assert.throws(() => renderSudoers('relay-panel', [['/usr/bin/systemctl', 'restart', 'a b*']]), /special characters/);
});

test('sudo itself reads the file as exactly these command lines for the panel user, as root, without password', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'relay-sudoers-'));
  try {
    const file = join(dir, 'relay-panel');
    await writeFile(file, renderSudoers('relay-panel', commands), { mode: 0o440 });
    if (!existsSync('/usr/bin/cvtsudoers')) {
      console.warn('sudo is not installed: parsed check skipped');
      return;
    }
    execFileSync('/usr/sbin/visudo', ['-cf', file], { stdio: 'pipe' });
    const parsed = JSON.parse(execFileSync('/usr/bin/cvtsudoers', ['-f', 'json', file], { encoding: 'utf8' }));
    assert.is(parsed.User_Specs.length, 1);
    const spec = parsed.User_Specs[0];
    assert.equal(spec.User_List, [{ username: 'relay-panel' }]);
    assert.is(spec.Cmnd_Specs.length, 1);
    assert.equal(spec.Cmnd_Specs[0].runasusers, [{ username: 'root' }]);
    assert.equal(spec.Cmnd_Specs[0].Options, [{ authenticate: false }]);
    assert.equal(spec.Cmnd_Specs[0].Commands.map((c: { command: string }) => c.command), joined);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('the launcher hands its arguments to sudo -n unchanged, never through a shell word split', () => {
  const script = renderWrapper('/usr/bin/sudo', '/usr/sbin/nginx');
  assert.match(script, /^#!\/bin\/sh\n/);
  assert.match(script, '\nexec /usr/bin/sudo -n /usr/sbin/nginx "$@"\n');
});


test('the helper launcher runs the current bundle with the root-owned configuration and the action sudo allowed', () => {
  const script = renderHelperLauncher('/usr/bin/node', '/opt/relay-panel/current/server.mjs', '/opt/relay-panel/vhost-helper.json');
  assert.match(script, /^#!\/bin\/sh\n/);
  assert.match(script, '\nexec /usr/bin/node /opt/relay-panel/current/server.mjs vhosts --helper-config /opt/relay-panel/vhost-helper.json "$@"\n');
});

test.run();
