// doctor's `ports` findings: the addresses the kernel lists for each port, a listener on another
// address than the configured one as a problem with its fix, nothing listening with the old fix.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigSchema } from '../../../lib/config.ts';
import { listenFinding, listenWants, portFindings, type ListenWant } from '../../../lib/install/listen-check.ts';
import { systemConfig } from '../../../lib/system/config.ts';
import { closeServer, listenOnLoopback, portOf, unusedPort } from '../../helpers/loopback-listener.ts';

const s = suite('doctor: real listen addresses');

const config = (completed = true, listen = { host: '127.0.0.1', port: 3100 }) =>
  ConfigSchema.parse({ ip: '203.0.113.7', domain: null, email: null, dataDir: '/var/lib/relay-panel', onboarding: { status: completed ? 'COMPLETED' : 'FRESH' }, listen });
const system = (listenAddress = '0.0.0.0') => systemConfig({ driver: 'host', nginx: { listenAddress } });
const want = (host: string, port = 9292): ListenWant => ({ what: 'IP panel', host, port, setting: 'nginx.listenAddress', down: 'DOWN', elsewhere: 'ELSEWHERE' });
const l = (host: string, port: number) => ({ host, port });

s('the issue\'s box: nginx on 0.0.0.0 is printed as 0.0.0.0, not as the 127.0.0.1 a probe would use', () => {
  assert.equal(listenFinding(want('0.0.0.0'), [l('127.0.0.1', 3100), l('0.0.0.0', 9292)]), { ok: true, message: 'IP panel listens on 0.0.0.0:9292', fix: 'ELSEWHERE' });
});

s('several addresses on one port are joined; the configured one among them is enough', () => {
  const https = { ...want('0.0.0.0', 443), what: 'https' };
  assert.equal(listenFinding(https, [l('0.0.0.0', 443), l('[::]', 443), l('0.0.0.0', 80)]).message, 'https listens on 0.0.0.0:443, [::]:443');
  assert.ok(listenFinding(want('[::]', 443), [l('0.0.0.0', 443), l('[::]', 443)]).ok);
  assert.ok(listenFinding(want('0:0::0', 443), [l('[::]', 443)]).ok, 'an address in another spelling');
});

s('listening, but not on the configured address: a problem, with the fix for that', () => {
  // configured for loopback, bound to every address: open to the world
  assert.equal(listenFinding(want('127.0.0.1'), [l('0.0.0.0', 9292)]),
    { ok: false, message: 'IP panel listens on 0.0.0.0:9292, not on 127.0.0.1:9292 as nginx.listenAddress says', fix: 'ELSEWHERE' });
  // configured for every address, bound to loopback only: a probe of 127.0.0.1 says "listens"; it does not for anyone else
  assert.equal(listenFinding(want('0.0.0.0'), [l('127.0.0.1', 9292)]).message, 'IP panel listens on 127.0.0.1:9292, not on 0.0.0.0:9292 as nginx.listenAddress says');
  // :: is not 0.0.0.0
  assert.not.ok(listenFinding(want('0.0.0.0'), [l('[::]', 9292)]).ok);
});

s('nothing on the port: a problem with the fix that starts it', () => {
  assert.equal(listenFinding(want('0.0.0.0'), [l('0.0.0.0', 443), l('127.0.0.1', 9293)]),
    { ok: false, message: 'IP panel does not listen: nothing listens on port 9292 (nginx.listenAddress: 0.0.0.0:9292)', fix: 'DOWN' });
});

s('the panel\'s localhost is either loopback address', () => {
  const panel = { ...want('localhost', 3100), what: 'panel', setting: 'listen.host in config.json' };
  assert.ok(listenFinding(panel, [l('127.0.0.1', 3100)]).ok);
  assert.ok(listenFinding(panel, [l('[::1]', 3100)]).ok);
  assert.equal(listenFinding(panel, [l('0.0.0.0', 3100)]).message, 'panel listens on 0.0.0.0:3100, not on localhost:3100 as listen.host in config.json says');
});

s('which ports: the panel\'s (config.json), the IP panel\'s and, once onboarding completed, https (nginx.listenAddress), each with its fixes', () => {
  const wants = listenWants(system('0.0.0.0'), config(true), true);
  assert.equal(wants.map((w) => `${w.what} ${w.host}:${w.port} ${w.setting}`), [
    'panel 127.0.0.1:3100 listen.host in config.json', 'IP panel 0.0.0.0:9292 nginx.listenAddress', 'https 0.0.0.0:443 nginx.listenAddress',
  ]);
  assert.equal(wants.map((w) => w.down), ['systemctl restart relay-panel', 'systemctl reload nginx; check /var/log/nginx/error.log', 'systemctl reload nginx; check /var/log/nginx/error.log']);
  assert.is(wants[0]!.elsewhere, "ss -ltnp 'sport = :3100' names the program that holds the port; install makes relay-panel.socket listen on 127.0.0.1:3100 for the panel: set listen.host in config.json to the same and stop any other program on the port, then: systemctl restart relay-panel.socket relay-panel");
  assert.is(wants[1]!.elsewhere, "ss -ltnp 'sport = :9292' names the program that holds the port; if it is nginx, its vhosts were written for another nginx.listenAddress than 0.0.0.0: give doctor the --system-config install was given");
  assert.is(wants[2]!.elsewhere, wants[1]!.elsewhere.replace(':9292', ':443'));
  assert.equal(listenWants(system(), config(false), false).map((w) => w.what), ['panel', 'IP panel']);
});

s('from a /proc of fixture files: each port\'s finding with its fix', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'relay-doctor-proc-'));
  try {
    await mkdir(join(dir, 'net'));
    const head = '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode';
    const rest = '00000000:00000000 00:00000000 00000000     0        0 1 1 0000000000000000 100 0 0 10 0';
    // the panel on 127.0.0.1:3100, nginx on 0.0.0.0:9292 and 127.0.0.1:443 (little-endian words)
    await writeFile(join(dir, 'net/tcp'), [head, `   0: 0100007F:0C1C 00000000:0000 0A ${rest}`, `   1: 00000000:244C 00000000:0000 0A ${rest}`, `   2: 0100007F:01BB 00000000:0000 0A ${rest}`].join('\n'));
    const found = await portFindings(system('0.0.0.0'), config(true), true, dir);
    assert.equal(found.map((f) => [f.ok, f.message]), [
      [true, 'panel listens on 127.0.0.1:3100'],
      [true, 'IP panel listens on 0.0.0.0:9292'],
      [false, 'https listens on 127.0.0.1:443, not on 0.0.0.0:443 as nginx.listenAddress says'],
    ]);
    assert.match(found[2]!.fix, "ss -ltnp 'sport = :443'");
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

s('without the tables (not Linux): a connect probe, and the message says the addresses are unknown', async () => {
  const server = await listenOnLoopback();
  const port = portOf(server);
  const closed = await unusedPort();
  try {
    const found = await portFindings(systemConfig({ driver: 'host', nginx: { listenAddress: '0.0.0.0' }, ports: { ipPanel: closed } }), config(false, { host: '127.0.0.1', port }), false, '/nonexistent-proc');
    assert.equal(found.map((f) => [f.ok, f.message]), [
      [true, `panel accepts connections on 127.0.0.1:${port} (/nonexistent-proc/net/tcp and tcp6 unreadable: the addresses it listens on are unknown)`],
      [false, `IP panel does not accept connections on 127.0.0.1:${closed} (/nonexistent-proc/net/tcp and tcp6 unreadable: the addresses it listens on are unknown)`],
    ]);
    assert.is(found[1]!.fix, 'systemctl reload nginx; check /var/log/nginx/error.log');
  } finally {
    await closeServer(server);
  }
});

s.run();
