// The installer against the loopback harness (fake systemd): every path under a temp prefix, nginx
// on a free port for the IP panel, a real system user (root only), the panel started as that user
// by a fake systemctl. Then the IP vhost with and without the admin P12, idempotence, resume,
// upgrade with rollback, doctor and uninstall.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, cp, lstat, mkdir, readdir, readFile, readlink, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { withTimeout } from '../../helpers/timeout.ts';
import { loopbackRequest } from '../../infra/http.ts';
import { account, lineage } from '../../helpers/certbot-tree.ts';
import { asPanelUser, fakeSystemctl, install as installOnce, ipPanel, relay, rootRequest, rootSocket, startInstalledBox, step, type InstalledBox, type Run } from './installed-box.ts';
import { restartJournalArgs } from '../../../lib/install/unit-restarts.ts';
import { printStepTimes } from '../../helpers/step-times.ts';

let box: InstalledBox;
const doctor = (): Promise<Run> => relay(box, join(box.releaseDir, 'server.mjs'), ['doctor']);
const lines = (run: Run, check: string) => run.events.filter((e) => e.step === check).map((e) => ({ status: e.status, message: e.message, fix: e.fix }));

/** Runs `body` with a file rewritten by `change`, then puts the file back. */
async function withFile<T>(file: string, change: (json: Record<string, any>) => void, body: () => Promise<T>): Promise<T> {
  const original = await readFile(file, 'utf8');
  const json = JSON.parse(original);
  change(json);
  await writeFile(file, JSON.stringify(json));
  try {
    return await body();
  } finally {
    await writeFile(file, original);
  }
}

/** An upgrade's steps, each reported once. */
const UPGRADE_STEPS = ['release', 'snapshot', 'packages', 'user', 'directories', 'acme', 'privileges', 'units', 'renewals', 'vhosts', 'streams', 'health', 'prune'];

const s = suite('install (fake systemd)');
printStepTimes(s);
/** the P12 password the first install printed */
let password = '';
const install = () => installOnce(box);
const hostKey = (ctx: InstalledBox) => join(ctx.infra.dir, 'chisel', 'host-key.pem');
/** When the fake systemd last started chisel's unit. */
const chiselSince = async (ctx: InstalledBox): Promise<number> => JSON.parse(await readFile(ctx.env.FAKE_SYSTEMD_STATE!, 'utf8'))['chisel.service'].since;

/** sha256 of every regular file below the roots, logs left out. */
async function checksums(roots: string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (path: string): Promise<void> => {
    const st = await lstat(path).catch(() => null);
    if (!st) return;
    if (st.isDirectory()) {
      for (const name of await readdir(path)) if (name !== 'logs' && !name.endsWith('.log')) await walk(join(path, name));
    } else if (st.isSymbolicLink()) out.set(path, `-> ${await readlink(path)}`);
    else if (st.isFile()) out.set(path, createHash('sha256').update(await readFile(path)).digest('hex'));
  };
  for (const root of roots) await walk(root);
  return out;
}

/** The box's vhost directories and the default server's certificate directory (the harness's nginx). */
async function vhostDirs(ctx: InstalledBox): Promise<{ available: string; enabled: string; selfSigned: string }> {
  const { nginx } = JSON.parse(await readFile(ctx.systemFile, 'utf8'));
  return { available: nginx.sitesAvailable, enabled: nginx.sitesEnabled, selfSigned: nginx.selfSignedDir };
}

/** The IP panel's vhost as this release writes it, read before the first change. */
let ipPanelAsWritten: string | undefined;

/**
 * The vhosts as an earlier release left them: no default server, Debian's `default` site
 * linked, and the IP panel's vhost in other words than this release's templates, loading the
 * panel's own certificate, key, client CA and CRL (as earlier releases did). Answers the IP
 * panel's text as this release writes it.
 */
async function asEarlierRelease(ctx: InstalledBox): Promise<string> {
  const d = await vhostDirs(ctx);
  const ipPanel = join(d.available, 'relay-ip-panel.conf');
  ipPanelAsWritten ??= await readFile(ipPanel, 'utf8');
  const system = JSON.parse(await readFile(ctx.systemFile, 'utf8'));
  const copies = (entry: string, file: string) => join(system.nginx.tlsDir, entry, file);
  const earlier = ipPanelAsWritten.replace(/\n# relay-panel sha256 .*\n$/, '\n# written by an earlier release\n')
    .replace(copies('ip-panel', 'fullchain.pem'), join(system.nginx.selfSignedDir, 'ip-panel.pem'))
    .replace(copies('ip-panel', 'privkey.pem'), join(system.nginx.selfSignedDir, 'ip-panel.key'))
    .replace(copies('client-ca', 'ca.pem'), join(system.pki.dir, 'ca.pem'))
    .replace(copies('client-ca', 'crl.pem'), join(system.pki.dir, 'crl.pem'));
  assert.not.match(earlier, system.nginx.tlsDir, 'the earlier text loads the panel\'s files');
  await writeFile(ipPanel, earlier);
  await rm(join(d.enabled, 'relay-default.conf'), { force: true });
  await rm(join(d.available, 'relay-default.conf'), { force: true });
  await writeFile(join(d.available, 'default'), 'server { listen 80 default_server; }\n');
  await symlink(join(d.available, 'default'), join(d.enabled, 'default')).catch(() => undefined);
  // the harness's nginx reads *.conf only, so Debian's file stays out of its configuration
  const { binaries, nginx } = JSON.parse(await readFile(ctx.systemFile, 'utf8'));
  execFileSync(binaries.nginx, ['-p', nginx.prefix, '-c', nginx.conf, '-s', 'reload'], { stdio: 'ignore' });
  return ipPanelAsWritten;
}

s.before(async () => {
  box = await startInstalledBox();
  box.env.FAKE_ARGV_LOG = join(box.dir, 'argv.log');
});
s.after(async () => {
  await box?.close();
});

s('install (as root) makes the user, config, CA, admin P12, IP vhost, root helper and units, and starts the panel', () =>
  withTimeout('install', 120_000, async () => {
    const ctx = box;
    const run = await install();
    assert.is(run.code, 0, `${run.stderr}\n${JSON.stringify(run.events, null, 1)}`);
    const names = run.events.map((e) => e.step);
    assert.equal(names, ['preflight', 'packages', 'user', 'directories', 'release', 'snapshot', 'config', 'acme', 'certificates', 'privileges', 'ip-vhost', 'units', 'renewals', 'harden', 'start', 'health', 'summary']);
    assert.is(step(run, 'health')!.status, 'done');
    assert.is(step(run, 'harden')!.status, 'skipped');
    const uid = Number(execFileSync('/usr/bin/id', ['-u', ctx.user], { encoding: 'utf8' }).trim());
    const config = await stat(join(ctx.prefix, 'etc/relay-panel/config.json'));
    assert.is(config.mode & 0o777, 0o600);
    assert.is(config.uid, uid);
    const p12 = await stat(join(ctx.prefix, 'root/relay-panel-admin.p12'));
    assert.is(p12.mode & 0o777, 0o600);
    assert.is(p12.uid, 0);
    assert.is((await stat(join(ctx.prefix, 'var/lib/relay-panel'))).mode & 0o777, 0o700);
    const unit = await readFile(join(ctx.infra.dir, 'systemd', 'relay-panel.service'), 'utf8');
    assert.match(unit, `User=${ctx.user}\n`);
    assert.match(unit, 'ProtectSystem=strict');
    const current = join(ctx.prefix, 'opt/relay-panel/current');
    assert.match(unit, `\nExecStart=${current}/server-start --config `);
    assert.match(unit, `\nEnvironment=RELAY_PANEL_NODE=${process.execPath}\n`);
    // the startup snapshot made by the node the unit names: its start script passes it to node
    assert.is(step(run, 'snapshot')!.status, 'changed', String(step(run, 'snapshot')!.message));
    // after a rehearsal start of the release as root (lib/rehearsal.ts), whose compiled code the blob holds
    assert.match(String(step(run, 'snapshot')!.message), ', with the code a rehearsal start compiled');
    const traced = spawnSync('/bin/sh', ['-x', join(current, 'server-start'), 'help'], { env: { ...process.env, RELAY_PANEL_NODE: process.execPath }, encoding: 'utf8' });
    assert.is(traced.status, 0, traced.stderr);
    assert.match(traced.stderr, `--snapshot-blob ${current}/server.snapshot.blob ${current}/server.mjs help`);
    assert.match(traced.stdout, 'usage: relay-panel');
    assert.match(unit, '\nNoNewPrivileges=yes\n');
    assert.is(await stat(join(ctx.prefix, 'etc/sudoers.d/relay-panel')).catch(() => null), null, 'no sudo rule');
    const helperConfig = await stat(join(ctx.prefix, 'opt/relay-panel/root-helper.json'));
    assert.equal([helperConfig.uid, helperConfig.mode & 0o777], [0, 0o644]);
    assert.match(await readFile(join(ctx.infra.dir, 'systemd', 'relay-panel-root.socket'), 'utf8'), `\nSocketGroup=${ctx.user}\nSocketMode=0660\n`);
    const socket = await stat(rootSocket(ctx));
    assert.equal([socket.isSocket(), socket.uid, socket.gid, socket.mode & 0o777], [true, 0, uid, 0o660]);
    // chisel and Authelia as users of their own, outside the panel's group (the root helper's socket is the group's)
    for (const service of ['chisel', 'authelia']) assert.match(await readFile(join(ctx.infra.dir, 'systemd', `${service}.service`), 'utf8'), `User=${ctx.user}-${service}\nGroup=${ctx.user}-${service}\n`);
    const groupsOf = (account: string) => execFileSync('/usr/bin/id', ['-Gn', account], { encoding: 'utf8' }).trim().split(' ');
    assert.equal(groupsOf(`${ctx.user}-chisel`), [`${ctx.user}-chisel`]);
    assert.equal(groupsOf(`${ctx.user}-authelia`), [`${ctx.user}-authelia`]);
    assert.ok(groupsOf(ctx.user).includes(`${ctx.user}-authelia`), 'the panel writes Authelia\'s TOTP storage');
    assert.not.ok(groupsOf(ctx.user).includes(`${ctx.user}-chisel`));
    const gid = (account: string) => Number(execFileSync('/usr/bin/id', ['-g', account], { encoding: 'utf8' }).trim());
    const chiselDir = await stat(join(ctx.infra.dir, 'chisel'));
    assert.equal([chiselDir.uid, chiselDir.gid, chiselDir.mode & 0o7777], [uid, gid(`${ctx.user}-chisel`), 0o2750]);
    const autheliaDir = await stat(join(ctx.infra.dir, 'authelia'));
    assert.equal([autheliaDir.uid, autheliaDir.gid, autheliaDir.mode & 0o7777], [uid, gid(`${ctx.user}-authelia`), 0o3770]);
    // the tunnel server's host key: made here by the panel's user, 0640 in chisel's group, named by its unit
    const key = await stat(hostKey(ctx));
    assert.equal([key.mode & 0o777, key.uid, key.gid], [0o640, uid, gid(`${ctx.user}-chisel`)]);
    assert.match(await readFile(join(ctx.infra.dir, 'systemd', 'chisel.service'), 'utf8'), ` --keyfile ${hostKey(ctx)}\n`);
    assert.match(String(step(run, 'units')!.message), `tunnel server key ${hostKey(ctx)} created (fingerprint `);
    // the panel's own renewal timer renews as its user, in the unprivileged sandbox; Debian's certbot is left alone
    const system = JSON.parse(await readFile(ctx.systemFile, 'utf8'));
    const renew = await readFile(join(ctx.infra.dir, 'systemd', 'relay-panel-renew.service'), 'utf8');
    assert.match(renew, `\nUser=${ctx.user}\nGroup=${ctx.user}\n`);
    assert.match(renew, `--config-dir ${system.acme.configDir}`);
    assert.match(renew, '\nNoNewPrivileges=yes\n');
    assert.ok(await stat(join(ctx.infra.dir, 'systemd', 'relay-panel-renew.timer')));
    assert.is(await stat(join(ctx.infra.dir, 'systemd', 'certbot.service.d')).catch(() => null), null, 'no drop-in on Debian\'s certbot');
    assert.is(await readlink(join(ctx.prefix, 'opt/relay-panel/current')), `releases/${ctx.version}`);
    const summary = step(run, 'summary')!;
    assert.type(summary.p12Password, 'string');
    password = String(summary.p12Password);
    assert.match(String(summary.url), `https://127.0.0.1:${ctx.infra.ports.ipPanel}`);
    // the panel really runs as the new user
    const pid = (await readFile(ctx.env.FAKE_PANEL_PIDFILE!, 'utf8')).trim();
    assert.is((await stat(`/proc/${pid}`)).uid, uid);
  }),
);

s('the panel user reaches root only through the helper: its requests work, anything else is refused, other users cannot connect', () => {
  const ctx = box;
  const conf = ['-p', ctx.infra.nginxPrefix, '-c', join(ctx.infra.nginxPrefix, 'nginx.conf')];
  const test = rootRequest(ctx, { action: 'nginx-test' });
  assert.is(test.status, 0, test.stderr);
  const state = rootRequest(ctx, { action: 'unit-state', unit: 'tunnel-server' });
  assert.is(state.status, 0, state.stderr);
  assert.is(JSON.parse(state.stdout).state, 'inactive');
  const refused: Array<[unknown, RegExp]> = [
    [{ action: 'unit', unit: 'panel', op: 'stop' }, /^Refused: the panel service cannot be stopped/],
    [{ action: 'unit', unit: 'ssh', op: 'restart' }, /^Refused: unit: /],
    [{ action: 'nginx-test', config: '/tmp/evil.conf' }, /^Refused: Unrecognized key: "config"/],
    [{ action: 'exec', argv: ['/bin/sh', '-c', 'id'] }, /^Refused: action: /],
  ];
  for (const [request, message] of refused) {
    const r = rootRequest(ctx, request);
    assert.is(r.status, 1, JSON.stringify(request));
    assert.match(r.stderr, message, JSON.stringify(request));
  }
  // the root-call launcher (certbot's deploy hook) asks the same helper
  const hook = asPanelUser(ctx, [join(ctx.prefix, 'opt/relay-panel/bin/relay-panel-root'), 'nginx-test']);
  assert.is(hook.status, 0, hook.stderr);
  // a user outside the panel's group cannot even connect
  const other = spawnSync('/usr/bin/setpriv', ['--reuid', 'nobody', '--regid', 'nogroup', '--clear-groups', process.execPath, '-e',
    `require('net').createConnection(${JSON.stringify(rootSocket(ctx))}).on('error', (e) => { console.log(e.code); process.exit(1); }).on('connect', () => process.exit(0))`], { encoding: 'utf8' });
  assert.is(other.status, 1);
  assert.is(other.stdout.trim(), 'EACCES');
  // without the helper the user cannot even test nginx's configuration (the CA key and logs are not its)
  assert.is.not(asPanelUser(ctx, ['/usr/sbin/nginx', ...conf, '-t', '-q']).status, 0);
});

s('the admin P12 opens the IP panel: /api/onboarding/status answers 200', () =>
  withTimeout('mtls', 20_000, async () => {
    const ctx = box;
    const pfx = await readFile(join(ctx.prefix, 'root/relay-panel-admin.p12'));
    const res = await ipPanel(ctx, '/api/onboarding/status', { pfx, passphrase: password });
    assert.is(res.status, 200, res.body);
    const { status, domain, email, suggestedDomain, publicLinks } = JSON.parse(res.body);
    assert.equal({ status, domain, email }, { status: 'FRESH', domain: null, email: null });
    // a real host: nothing offered, links by nginx over https
    assert.equal([suggestedDomain, publicLinks.scheme], [null, 'https']);
  }),
);

s('without a certificate health answers and everything else is 496 with the help page', () =>
  withTimeout('no cert', 20_000, async () => {
    const ctx = box;
    const health = await ipPanel(ctx, '/api/health');
    assert.is(health.status, 200);
    assert.equal(JSON.parse(health.body), { status: 'ok' });
    for (const path of ['/api/onboarding/status', '/', '/api/tunnels']) {
      const res = await ipPanel(ctx, path);
      assert.is(res.status, 496, path);
      assert.match(res.body, /certificate/i, path);
    }
  }),
);

s('a second install changes no file (logs aside) and makes no new CA, certificate or secret', () =>
  withTimeout('idempotent', 120_000, async () => {
    const ctx = box;
    const roots = [ctx.prefix, ctx.infra.dir];
    const before = await checksums(roots);
    const run = await install();
    assert.is(run.code, 0, run.stderr);
    const changed = run.events.filter((e) => e.status === 'changed').map((e) => e.step);
    assert.equal(changed, []);
    assert.not.ok(step(run, 'summary')!.p12Password);
    const after = await checksums(roots);
    const differing = [...new Set([...before.keys(), ...after.keys()])].filter((k) => before.get(k) !== after.get(k) && !k.startsWith(ctx.infra.dir + '/run'));
    assert.equal(differing, []);
  }),
);

s('a lost host key is made again by install, and chisel, which names it in its unit already, restarts to serve it; a key that came back with another mode is 0600 again', () =>
  withTimeout('key again', 120_000, async () => {
    const ctx = box;
    assert.is(spawnSync(process.execPath, [fakeSystemctl, 'start', 'chisel'], { env: ctx.env }).status, 0);
    await rm(hostKey(ctx));
    const before = await chiselSince(ctx);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const again = await install();
    assert.is(again.code, 0, JSON.stringify(again.events) + again.stderr);
    assert.match(String(step(again, 'units')!.message), `tunnel server key ${hostKey(ctx)} created`);
    assert.ok((await chiselSince(ctx)) > before, 'chisel restarted with the new key');
    await chmod(hostKey(ctx), 0o644);
    assert.is((await install()).code, 0);
    assert.is((await stat(hostKey(ctx))).mode & 0o777, 0o640);
  }),
);

s('an interrupted install resumes: missing unit, root helper configuration and vhost link come back, the CA stays', () =>
  withTimeout('resume', 120_000, async () => {
    const ctx = box;
    const ca = await readFile(join(ctx.infra.dir, 'pki', 'ca.pem'), 'utf8');
    const unitFile = join(ctx.infra.dir, 'systemd', 'relay-panel.service');
    const helperConfig = join(ctx.prefix, 'opt/relay-panel/root-helper.json');
    const link = join(ctx.infra.nginxPrefix, 'sites-enabled', 'relay-ip-panel.conf');
    for (const f of [unitFile, helperConfig, link]) await rm(f);
    const run = await install();
    assert.is(run.code, 0, run.stderr);
    for (const f of [unitFile, helperConfig, link]) await stat(f);
    assert.is(await readFile(join(ctx.infra.dir, 'pki', 'ca.pem'), 'utf8'), ca);
    assert.equal(run.events.filter((e) => e.status === 'changed').map((e) => e.step), ['privileges', 'ip-vhost', 'units']);
  }),
);

s('a failed upgrade rolls back to the previous release, which answers again', () =>
  withTimeout('upgrade', 90_000, async () => {
    const ctx = box;
    const broken = join(ctx.dir, 'release-broken');
    await cp(ctx.releaseDir, broken, { recursive: true });
    await writeFile(join(broken, 'VERSION'), '9.9.9-broken\n');
    // a release whose panel cannot start; its commands work (the upgrade runs its panel tasks)
    await writeFile(join(broken, 'server.mjs'), `const [c] = process.argv.slice(2);
if (c === 'upgrade' || c === 'panel-task') await import(${JSON.stringify(join(ctx.releaseDir, 'server.mjs'))});
else process.exit(1);\n`);
    // a box of an earlier release: the upgrade's vhosts step changes its vhosts, so the rollback must undo that
    await asEarlierRelease(ctx);
    const d = await vhostDirs(ctx);
    const vhostsBefore = await checksums([d.available, d.enabled, d.selfSigned]);
    const run = await relay(ctx, join(broken, 'server.mjs'), ['upgrade', '--health-timeout', '3', '--no-downloads']);
    assert.is(run.code, 1, JSON.stringify(run.events));
    assert.is(step(run, 'vhosts')!.status, 'changed', 'the default server was written before the health wait');
    const health = step(run, 'health')!;
    assert.is(health.status, 'failed');
    assert.match(String(health.message), `rolled back to releases/${ctx.version}, which answers`);
    assert.is(await readlink(join(ctx.prefix, 'opt/relay-panel/current')), `releases/${ctx.version}`);
    // every vhost, link and certificate as before, but the IP panel's: the previous release here is
    // this code, whose start rewrote it with its own templates after the rollback
    const ipPanelFile = join(d.available, 'relay-ip-panel.conf');
    vhostsBefore.set(ipPanelFile, createHash('sha256').update(ipPanelAsWritten!).digest('hex'));
    assert.equal(Object.fromEntries(await checksums([d.available, d.enabled, d.selfSigned])), Object.fromEntries(vhostsBefore));
    assert.is((await ipPanel(ctx, '/api/health')).status, 200);
  }),
);

s('an upgrade of a box an earlier release installed: the default server comes, Debian\'s site goes, and the new panel rewrites the vhosts whose templates changed', () =>
  withTimeout('upgrade rewrites vhosts', 90_000, async () => {
    const ctx = box;
    const d = await vhostDirs(ctx);
    const ipPanelText = await asEarlierRelease(ctx);
    const unknownName = () => loopbackRequest({ port: ctx.infra.ports.https, host: 'nothing-here.example.test', tls: { rejectUnauthorized: false } });
    const refused = async () => (await unknownName().catch(() => ({ status: 0 }))).status === 0;
    for (let i = 0; i < 60 && !(await refused()); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok(await refused(), 'no server on the https port before (nginx reloaded without the default server)');
    const next = join(ctx.dir, 'release-earlier');
    await cp(ctx.releaseDir, next, { recursive: true });
    await writeFile(join(next, 'VERSION'), `${ctx.version}-earlier\n`);
    const run = await relay(ctx, join(next, 'server.mjs'), ['upgrade', '--health-timeout', '20', '--no-downloads']);
    assert.is(run.code, 0, JSON.stringify(run.events) + run.stderr);
    const vhosts = step(run, 'vhosts')!;
    assert.is(vhosts.status, 'changed');
    assert.match(String(vhosts.message), "Debian's default site unlinked");
    // root rewrote the earlier TLS paths before nginx was tested: nginx never loads the panel's files
    assert.match(String(vhosts.message), "relay-ip-panel.conf now load root's checked copies of their certificates");
    assert.is(await lstat(join(d.enabled, 'default')).catch(() => null), null);
    assert.ok(await stat(join(d.available, 'default')), 'Debian\'s file stays');
    assert.is(await readlink(join(d.enabled, 'relay-default.conf')), join(d.available, 'relay-default.conf'));
    const answer = await unknownName();
    assert.equal([answer.status, answer.body], [404, 'Not found\n']);
    // the new panel's start, through the root helper
    assert.is(await readFile(join(d.available, 'relay-ip-panel.conf'), 'utf8'), ipPanelText);
    assert.match(await readFile(ctx.env.FAKE_PANEL_LOG!, 'utf8'), "rewrote 1 vhost with this release's templates: relay-ip-panel.conf");
    // back to the release the later tests expect
    const back = await relay(ctx, join(ctx.releaseDir, 'server.mjs'), ['upgrade', '--health-timeout', '20']);
    assert.is(back.code, 0, JSON.stringify(back.events));
    assert.is(step(back, 'vhosts')!.status, 'done');
  }),
);

s('an upgrade whose download fails is all or nothing: every file as before, the running panel untouched', () =>
  withTimeout('upgrade download failure', 90_000, async () => {
    const ctx = box;
    const next = join(ctx.dir, 'release-unreachable');
    await cp(ctx.releaseDir, next, { recursive: true });
    await writeFile(join(next, 'VERSION'), `${ctx.version}-unreachable\n`);
    const system = await readFile(ctx.systemFile, 'utf8');
    // the pinned programs' host cannot be reached (a closed port on loopback)
    const unreachable = JSON.parse(system);
    unreachable.chisel = { ...unreachable.chisel, release: { ...unreachable.chisel.release, url: 'http://127.0.0.1:9/chisel_1.9.0_linux_amd64.gz' } };
    await writeFile(ctx.systemFile, JSON.stringify(unreachable));
    const panelPid = await readFile(ctx.env.FAKE_PANEL_PIDFILE!, 'utf8');
    // the releases folder may keep the new one (inert); everything else must be byte for byte as before
    // the units live in the harness's unit directory; the drop-in an earlier release put on Debian's certbot is there again
    const dropIn = join(ctx.infra.dir, 'systemd', 'certbot.service.d', 'relay-panel.conf');
    await mkdir(dirname(dropIn), { recursive: true });
    await writeFile(dropIn, '[Service]\nUser=an-earlier-release\n');
    const roots = [ctx.prefix, join(ctx.infra.dir, 'systemd')];
    const outside = (k: string) => !k.startsWith(join(ctx.prefix, 'opt/relay-panel/releases/'));
    const before = await checksums(roots);
    try {
      const run = await relay(ctx, join(next, 'server.mjs'), ['upgrade', '--health-timeout', '20', '--downloads']);
      assert.is(run.code, 1, JSON.stringify(run.events));
      const failed = run.events.find((e) => e.status === 'failed')!;
      assert.is(failed.step, 'units');
      assert.match(String(failed.message), 'download of http://127.0.0.1:9/chisel_1.9.0_linux_amd64.gz failed');
      assert.match(String(failed.message), `everything the upgrade changed was put back: rolled back to releases/${ctx.version} (the panel was not restarted)`);
    } finally {
      await writeFile(ctx.systemFile, system);
    }
    const after = await checksums(roots);
    await rm(dirname(dropIn), { recursive: true, force: true });
    const differing = [...new Set([...before.keys(), ...after.keys()])].filter((k) => outside(k) && before.get(k) !== after.get(k));
    assert.equal(differing, []);
    assert.is(await readlink(join(ctx.prefix, 'opt/relay-panel/current')), `releases/${ctx.version}`);
    assert.is(await readFile(ctx.env.FAKE_PANEL_PIDFILE!, 'utf8'), panelPid, 'the panel was not restarted');
    assert.is((await ipPanel(ctx, '/api/health')).status, 200);
  }),
);

s('upgrade keeps the install\'s --no-downloads: without the flag it downloads nothing', () =>
  withTimeout('remembered choices', 90_000, async () => {
    const ctx = box;
    const record = JSON.parse(await readFile(join(ctx.prefix, 'opt/relay-panel/install-options.json'), 'utf8'));
    const { system: recordedSystem, created, ...choices } = record;
    assert.equal(choices, { ip: '127.0.0.1', harden: false, packages: false, downloads: false });
    // --system-config is remembered too: every later command works on the same paths
    assert.equal(recordedSystem, JSON.parse(await readFile(ctx.systemFile, 'utf8')));
    // what install made, for --purge to remove exactly that
    assert.equal(created.users, [ctx.user, `${ctx.user}-chisel`, `${ctx.user}-authelia`]);
    assert.ok(created.paths.includes(join(ctx.prefix, 'etc/relay-panel')), JSON.stringify(created.paths));
    assert.ok(created.paths.includes(join(ctx.prefix, 'root/relay-panel-admin.p12')), JSON.stringify(created.paths));
    assert.equal(created.packages, []);
    const system = await readFile(ctx.systemFile, 'utf8');
    const unreachable = JSON.parse(system);
    unreachable.chisel = { ...unreachable.chisel, release: { ...unreachable.chisel.release, url: 'http://127.0.0.1:9/chisel_1.9.0_linux_amd64.gz' } };
    await writeFile(ctx.systemFile, JSON.stringify(unreachable));
    const next = join(ctx.dir, 'release-remembered');
    await cp(ctx.releaseDir, next, { recursive: true });
    await writeFile(join(next, 'VERSION'), `${ctx.version}-remembered\n`);
    try {
      const run = await relay(ctx, join(next, 'server.mjs'), ['upgrade', '--health-timeout', '20']);
      assert.is(run.code, 0, JSON.stringify(run.events) + run.stderr);
      assert.match(String(step(run, 'units')!.message), '--no-downloads: put chisel at');
    } finally {
      await writeFile(ctx.systemFile, system);
    }
    assert.is(await readlink(join(ctx.prefix, 'opt/relay-panel/current')), `releases/${ctx.version}-remembered`);
    // back to the release the later tests expect
    const back = await relay(ctx, join(ctx.releaseDir, 'server.mjs'), ['upgrade', '--health-timeout', '20']);
    assert.is(back.code, 0, JSON.stringify(back.events));
  }),
);

s('a working upgrade switches the release and keeps configuration and data', () =>
  withTimeout('upgrade ok', 90_000, async () => {
    const ctx = box;
    const next = join(ctx.dir, 'release-next');
    await cp(ctx.releaseDir, next, { recursive: true });
    await writeFile(join(next, 'VERSION'), `${ctx.version}-next\n`);
    const config = await readFile(join(ctx.prefix, 'etc/relay-panel/config.json'), 'utf8');
    const key = await readFile(hostKey(ctx), 'utf8');
    const run = await relay(ctx, join(next, 'server.mjs'), ['upgrade', '--health-timeout', '20', '--no-downloads']);
    assert.is(run.code, 0, JSON.stringify(run.events) + run.stderr);
    assert.is(await readlink(join(ctx.prefix, 'opt/relay-panel/current')), `releases/${ctx.version}-next`);
    // the same root helper and units serve the new release, which gets its own startup snapshot: nothing else changed (prune: the release the failed download left)
    assert.equal(run.events.filter((e) => e.status === 'changed').map((e) => e.step), ['release', 'snapshot', 'prune']);
    assert.equal(run.events.map((e) => e.step), UPGRADE_STEPS);
    assert.is(await readFile(join(ctx.prefix, 'etc/relay-panel/config.json'), 'utf8'), config);
    assert.is(await readFile(hostKey(ctx), 'utf8'), key, 'the tunnel server keeps its host key: clients pinned it');
    assert.is((await stat(hostKey(ctx))).mode & 0o777, 0o640);
    assert.is((await ipPanel(ctx, '/api/health')).status, 200);
  }),
);

s('an upgrade from a release without the host key makes one for chisel\'s user, names it in the unit and restarts a running chisel', () =>
  withTimeout('upgrade adds the key', 90_000, async () => {
    const ctx = box;
    const unitFile = join(ctx.infra.dir, 'systemd', 'chisel.service');
    // the previous release: no key, a unit without --keyfile, chisel running
    await rm(hostKey(ctx));
    await writeFile(unitFile, (await readFile(unitFile, 'utf8')).replace(` --keyfile ${hostKey(ctx)}`, ''));
    assert.is(spawnSync(process.execPath, [fakeSystemctl, 'start', 'chisel'], { env: ctx.env }).status, 0);
    const started = await chiselSince(ctx);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const next = join(ctx.dir, 'release-next2');
    await cp(ctx.releaseDir, next, { recursive: true });
    await writeFile(join(next, 'VERSION'), `${ctx.version}-next2\n`);
    const run = await relay(ctx, join(next, 'server.mjs'), ['upgrade', '--health-timeout', '20', '--no-downloads']);
    assert.is(run.code, 0, JSON.stringify(run.events) + run.stderr);
    assert.equal(run.events.filter((e) => e.status === 'changed').map((e) => e.step), ['release', 'snapshot', 'units', 'prune']);
    const uid = Number(execFileSync('/usr/bin/id', ['-u', ctx.user], { encoding: 'utf8' }).trim());
    const key = await stat(hostKey(ctx));
    assert.equal([key.mode & 0o777, key.uid], [0o640, uid]);
    assert.match(await readFile(unitFile, 'utf8'), ` --keyfile ${hostKey(ctx)}\n`);
    assert.ok((await chiselSince(ctx)) > started, 'chisel restarted: it serves the new key at once');
  }),
);

s('a working upgrade keeps current, the release it replaced and the last placed other, and removes older releases and .partial leftovers; a failed one removes nothing', () =>
  withTimeout('upgrade prunes releases', 90_000, async () => {
    const ctx = box;
    const releases = join(ctx.prefix, 'opt/relay-panel/releases');
    const listing = async () => (await readdir(releases)).sort();
    const v = ctx.version;
    // what the earlier upgrades left: each working one kept three (the install's own release went at the last)
    assert.equal(await listing(), [`${v}-next`, `${v}-next2`, `${v}-remembered`]);
    // an interrupted copy's leftover, and what is not a release: never touched
    await mkdir(join(releases, `${v}-interrupted.partial/panel`), { recursive: true });
    await writeFile(join(releases, 'notes.txt'), 'mine\n');
    await mkdir(join(releases, 'keep-me'));
    const upgradeTo = async (name: string, args: string[]) => {
      const dir = join(ctx.dir, `release-${name}`);
      await cp(ctx.releaseDir, dir, { recursive: true });
      await writeFile(join(dir, 'VERSION'), `${v}-${name}\n`);
      return relay(ctx, join(dir, 'server.mjs'), ['upgrade', '--health-timeout', '20', ...args]);
    };

    // fails at the download: placed, rolled back, nothing removed
    const system = await readFile(ctx.systemFile, 'utf8');
    const unreachable = JSON.parse(system);
    unreachable.chisel = { ...unreachable.chisel, release: { ...unreachable.chisel.release, url: 'http://127.0.0.1:9/chisel_1.9.0_linux_amd64.gz' } };
    await writeFile(ctx.systemFile, JSON.stringify(unreachable));
    try {
      const failed = await upgradeTo('failed', ['--downloads']);
      assert.is(failed.code, 1, JSON.stringify(failed.events));
      assert.is(step(failed, 'prune'), undefined);
    } finally {
      await writeFile(ctx.systemFile, system);
    }
    assert.equal(await listing(), [`${v}-failed`, `${v}-interrupted.partial`, `${v}-next`, `${v}-next2`, `${v}-remembered`, 'keep-me', 'notes.txt']);

    // works: kept by when each was placed (the failed one last), not by the version's spelling (`remembered` sorts highest)
    const run = await upgradeTo('pruned', ['--no-downloads']);
    assert.is(run.code, 0, JSON.stringify(run.events) + run.stderr);
    assert.equal(run.events.map((e) => e.step), UPGRADE_STEPS);
    const prune = step(run, 'prune')!;
    const message = String(prune.message);
    assert.is(prune.status, 'changed', message);
    assert.match(message, `removed ${v}-next, ${v}-remembered, ${v}-interrupted.partial from ${releases} (`);
    assert.match(message, /\([0-9.]+ MiB freed\)/);
    assert.match(message, `kept ${v}-pruned, ${v}-next2, ${v}-failed (at most 3)`);
    assert.equal(await listing(), [`${v}-failed`, `${v}-next2`, `${v}-pruned`, 'keep-me', 'notes.txt']);
    assert.is(await readlink(join(ctx.prefix, 'opt/relay-panel/current')), `releases/${v}-pruned`);
    assert.is((await ipPanel(ctx, '/api/health')).status, 200);
  }),
);

s('an upgrade of a box whose panel issued into Debian\'s certbot directory: the panel\'s lineage moves to its own, the configuration follows, and the old directory is root\'s again with what root\'s certbot would run quarantined', () =>
  withTimeout('legacy certbot directories', 90_000, async () => {
    const ctx = box;
    // Debian's directories, where earlier releases issued (under the test's prefix): root gives back only these
    const dirs = { configDir: join(ctx.prefix, 'etc/letsencrypt'), workDir: join(ctx.prefix, 'var/lib/letsencrypt'), logsDir: join(ctx.prefix, 'var/log/letsencrypt'), webroot: join(ctx.prefix, 'var/www/html') };
    for (const d of Object.values(dirs)) await mkdir(d, { recursive: true });
    const launcher = join(ctx.prefix, 'opt/relay-panel/bin/relay-panel-root');
    await lineage(dirs, 'old.example.test', { hook: `${launcher} nginx-reload`, account: 'a1' });
    await account(dirs.configDir, 'a1');
    // the operator's own lineage, and what the panel's user planted for root's certbot
    await lineage(dirs, 'mine.example.test', { account: 'a1', preHook: 'touch /root/relay-witness' });
    await mkdir(join(dirs.configDir, 'renewal-hooks', 'pre'), { recursive: true });
    await writeFile(join(dirs.configDir, 'renewal-hooks', 'pre', 'planted'), '#!/bin/sh\ntouch /root/relay-witness\n', { mode: 0o755 });
    // an earlier installer gave it all to the panel's user (their parents stay root's)
    execFileSync('/bin/chown', ['-R', `${ctx.user}:${ctx.user}`, ...Object.values(dirs)]);
    const configFile = join(ctx.prefix, 'etc/relay-panel/config.json');
    const config = JSON.parse(await readFile(configFile, 'utf8'));
    const wanted = { ...config.system.acme };
    // and a configuration the panel's user turned against root: its old webroot is the panel's own state
    const dataDir = join(ctx.prefix, 'var/lib/relay-panel');
    config.system.acme = { ...config.system.acme, ...dirs, webroot: dataDir };
    await writeFile(configFile, JSON.stringify(config, null, 2));

    const next = join(ctx.dir, 'release-legacy');
    await cp(ctx.releaseDir, next, { recursive: true });
    await writeFile(join(next, 'VERSION'), `${ctx.version}-legacy\n`);
    const run = await relay(ctx, join(next, 'server.mjs'), ['upgrade', '--health-timeout', '20', '--no-downloads']);
    assert.is(run.code, 0, JSON.stringify(run.events) + run.stderr);
    const acme = step(run, 'acme')!;
    assert.is(acme.status, 'warning', JSON.stringify(acme));
    assert.match(String(acme.message), `moved old.example.test from ${dirs.configDir} to ${wanted.configDir}`);
    assert.match(String(acme.fix), join(ctx.prefix, 'var/lib/relay-panel-quarantine'));
    // the panel's lineage is in its own directory, and the configuration says so
    assert.match(await readFile(join(wanted.configDir, 'renewal', 'old.example.test.conf'), 'utf8'), `archive_dir = ${wanted.configDir}/archive/old.example.test`);
    assert.equal(JSON.parse(await readFile(configFile, 'utf8')).system.acme.configDir, wanted.configDir);
    // the old directory is root's, through and through; the operator's lineage without its planted hook is quarantined, as is the hook script
    const owners = execFileSync('/usr/bin/find', [dirs.configDir, dirs.workDir, dirs.logsDir, '-printf', '%u\n'], { encoding: 'utf8' }).trim().split('\n');
    assert.equal([...new Set(owners)], ['root']);
    await stat(join(dirs.configDir, 'archive', 'mine.example.test', 'privkey1.pem'));
    assert.is(await stat(join(dirs.configDir, 'renewal-hooks', 'pre', 'planted')).catch(() => null), null);
    assert.is(await stat(join(dirs.configDir, 'renewal', 'mine.example.test.conf')).catch(() => null), null);
    const quarantined = execFileSync('/usr/bin/find', [join(ctx.prefix, 'var/lib/relay-panel-quarantine'), '-type', 'f'], { encoding: 'utf8' });
    assert.match(quarantined, 'renewal-hooks/pre/planted');
    assert.match(quarantined, 'renewal/mine.example.test.conf');
    assert.is((await stat(join(ctx.prefix, 'var/lib/relay-panel-quarantine'))).mode & 0o777, 0o700);
    // root gives back Debian's directories only, never one the panel's configuration names
    const uid = Number(execFileSync('/usr/bin/id', ['-u', ctx.user], { encoding: 'utf8' }).trim());
    assert.equal([(await stat(dataDir)).uid, (await stat(dataDir)).mode & 0o777], [uid, 0o700]);
    assert.is((await ipPanel(ctx, '/api/health')).status, 200);
  }),
);

s('chisel active but restarted 34 times in 10 minutes: a problem, with where to look; the journal is asked for systemd\'s own entries; without it, NRestarts', () =>
  withTimeout('restart loop', 90_000, async () => {
    const ctx = box;
    const configFile = join(ctx.prefix, 'etc/relay-panel/config.json');
    const stateFile = ctx.env.FAKE_SYSTEMD_STATE!;
    const now = Date.now();
    // started by hand 20 minutes ago; 5 restarts 15 minutes ago, 34 in the last 9
    const restarts = [...Array.from({ length: 5 }, (_, i) => now - 15 * 60_000 + i * 1000), ...Array.from({ length: 34 }, (_, i) => now - 9 * 60_000 + i * 10_000)];
    // chisel and Authelia are looked at once onboarding completed
    await withFile(configFile, (c) => (c.onboarding.status = 'COMPLETED'), () =>
      withFile(stateFile, (units) => {
        units['chisel.service'] = { state: 'active', since: now - 20 * 60_000, restarts };
        units['authelia.service'] = { state: 'active', since: now - 60_000 };
      }, async () => {
        const run = await doctor();
        assert.is(run.code, 1);
        assert.equal(run.events.filter((e) => e.status === 'failed').map((e) => e.step), ['units'], JSON.stringify(run.events.filter((e) => e.status === 'failed')));
        assert.equal(lines(run, 'units'), [
          { status: 'done', message: 'nginx is active', fix: undefined },
          { status: 'done', message: 'relay-panel.socket is active', fix: undefined },
          { status: 'done', message: 'relay-panel is active', fix: undefined },
          { status: 'done', message: 'relay-panel-root.socket is active', fix: undefined },
          { status: 'failed', message: 'chisel is active, but systemd restarted it 34 times in the last 10 minutes', fix: 'journalctl -u chisel -n 50 shows why' },
          { status: 'done', message: 'authelia is active', fix: undefined },
        ]);
        const calls = (await readFile(ctx.env.FAKE_ARGV_LOG!, 'utf8')).split('\n').filter(Boolean).map((l) => JSON.parse(l) as { prog: string; argv: string[] });
        assert.ok(calls.some((c) => c.prog === 'journalctl' && JSON.stringify(c.argv) === JSON.stringify(restartJournalArgs('chisel.service'))), 'journalctl asked for PID 1\'s restart entries of chisel.service');

        // a journal that cannot be read: systemd's NRestarts, which counts since the start by hand, and the message says so
        const missing = join(ctx.dir, 'no-journalctl');
        await withFile(ctx.systemFile, (system) => (system.binaries.journalctl = missing), async () => {
          const chisel = lines(await doctor(), 'units').find((l) => String(l.message).startsWith('chisel'))!;
          assert.is(chisel.status, 'failed');
          assert.is(chisel.message, `chisel is active, but systemd restarted it 39 times since it was last started by hand (NRestarts; the journal could not be read: no-journalctl is not installed (${missing}))`);
          assert.is(chisel.fix, 'journalctl -u chisel -n 50 shows why');
        });
      }));
    // and a chisel started by hand since: its restarts before that are history; 3 in 10 minutes are not a loop
    await withFile(configFile, (c) => (c.onboarding.status = 'COMPLETED'), () =>
      withFile(stateFile, (units) => {
        units['chisel.service'] = { state: 'active', since: now - 60_000, restarts: [...restarts.slice(0, 5), now - 50_000, now - 40_000, now - 30_000] };
        units['authelia.service'] = { state: 'active', since: now - 60_000 };
      }, async () => {
        const chisel = lines(await doctor(), 'units').find((l) => String(l.message).startsWith('chisel'))!;
        assert.equal(chisel, { status: 'done', message: 'chisel is active; systemd restarted it 3 times in the last 10 minutes', fix: undefined });
      }));
  }),
);

s('ports: each line names the addresses the kernel lists; off nginx.listenAddress is a problem, with a fix that works', () =>
  withTimeout('listen addresses', 90_000, async () => {
    const ctx = box;
    const { panel, ipPanel } = ctx.infra.ports;
    const configFile = join(ctx.prefix, 'etc/relay-panel/config.json');
    const now = Date.now();
    await withFile(configFile, (c) => (c.onboarding.status = 'COMPLETED'), () =>
      withFile(ctx.env.FAKE_SYSTEMD_STATE!, (units) => {
        for (const unit of ['chisel.service', 'authelia.service']) units[unit] = { state: 'active', since: now - 60_000 };
      }, async () => {
        const ok = await doctor();
        assert.equal(lines(ok, 'ports').slice(0, 2), [
          { status: 'done', message: `panel listens on 127.0.0.1:${panel}`, fix: undefined },
          { status: 'done', message: `IP panel listens on 127.0.0.1:${ipPanel}`, fix: undefined },
        ]);
        // doctor given another nginx.listenAddress than install: a connect probe of 127.0.0.1 would have said "listens"
        await withFile(ctx.systemFile, (system) => (system.nginx.listenAddress = '0.0.0.0'), async () => {
          const off = await doctor();
          assert.is(off.code, 1);
          const ip = lines(off, 'ports')[1]!;
          assert.equal(ip, { status: 'failed', message: `IP panel listens on 127.0.0.1:${ipPanel}, not on 0.0.0.0:${ipPanel} as nginx.listenAddress says`,
            fix: `ss -ltnp 'sport = :${ipPanel}' names the program that holds the port; if it is nginx, its vhosts were written for another nginx.listenAddress than 0.0.0.0: give doctor the --system-config install was given` });
        });
      }));
  }),
);

s('doctor passes on the running box and names a stopped panel with its fix', () =>
  withTimeout('doctor', 60_000, async () => {
    const ctx = box;
    const server = join(ctx.releaseDir, 'server.mjs');
    const ok = await relay(ctx, server, ['doctor']);
    assert.is(ok.code, 0, JSON.stringify(ok.events.filter((e) => e.status !== 'done')));
    assert.ok(ok.events.some((e) => e.step === 'crl' && e.status === 'done'));
    assert.equal(ok.events.filter((e) => e.step === 'nginx').map((e) => e.message), ['configuration test passes', 'reload succeeds']);
    assert.match(String(ok.events.find((e) => e.step === 'snapshot')!.message), 'the panel starts from its startup snapshot ');
    // DNS for the domain, through the harness's dnsmasq (example.test -> 127.0.0.1, nothing else resolves)
    const configFile = join(ctx.prefix, 'etc/relay-panel/config.json');
    const original = await readFile(configFile, 'utf8');
    try {
      for (const [domain, ok] of [['example.test', true], ['elsewhere.invalid', false]] as const) {
        await writeFile(configFile, JSON.stringify({ ...JSON.parse(original), domain }));
        const dns = (await relay(ctx, server, ['doctor'])).events.filter((e) => e.step === 'dns');
        assert.is(dns.length, 2);
        assert.ok(dns.every((e) => e.status === (ok ? 'done' : 'failed')), JSON.stringify(dns));
        if (!ok) assert.match(String(dns[0]!.fix), `create A records ${domain} and *.${domain} pointing to 127.0.0.1`);
      }
    } finally {
      await writeFile(configFile, original);
    }
    assert.match(String(ok.events.find((e) => e.step === 'tunnel-key')!.message), `tunnel server host key ${hostKey(ctx)}: `);
    assert.equal(ok.events.filter((e) => e.step === 'default-server').map((e) => e.status), ['done']);
    assert.equal(ok.events.filter((e) => e.step === 'renewals').map((e) => e.message), [`the panel's certificates renew from relay-panel-renew.timer as ${ctx.user}; Debian's certbot.timer is the operator's`]);
    execFileSync(process.execPath, [fakeSystemctl, 'stop', ctx.env.FAKE_PANEL_UNIT!], { env: ctx.env });
    // and the tunnel server's key and the default server's link gone
    const d = await vhostDirs(ctx);
    const key = await readFile(hostKey(ctx));
    await rm(hostKey(ctx));
    await rm(join(d.enabled, 'relay-default.conf'));
    const renewService = join(ctx.infra.dir, 'systemd', 'relay-panel-renew.service');
    const renewText = await readFile(renewService, 'utf8');
    await rm(renewService);
    // and the startup snapshot's record naming another node binary, as after a Node upgrade
    const record = join(ctx.prefix, 'opt/relay-panel/current/server.snapshot.blob.made');
    const made = await readFile(record, 'utf8');
    await writeFile(record, made.replace(/^\d+:\d+:/, '1:1:'));
    try {
      const bad = await relay(ctx, server, ['doctor']);
      assert.is(bad.code, 1);
      const failed = bad.events.filter((e) => e.status === 'failed');
      assert.equal(failed.map((e) => e.step), ['renewals', 'default-server', 'tunnel-key', 'units', 'ports', 'snapshot']);
      assert.match(String(failed[0]!.message), `not what this release writes: ${renewService}`);
      assert.match(String(failed[2]!.fix), 'put it back from a backup');
      assert.match(String(failed[3]!.fix), 'systemctl restart relay-panel');
      assert.match(String(failed[5]!.message), 'was made by another node binary or with other flags');
      assert.match(String(failed[5]!.fix), 'relay-panel install makes it again');
    } finally {
      await writeFile(record, made);
      await writeFile(hostKey(ctx), key, { mode: 0o640 });
      await symlink(join(d.available, 'relay-default.conf'), join(d.enabled, 'relay-default.conf'));
      await writeFile(renewService, renewText);
    }
  }),
);

s('uninstall removes units, the root helper, vhosts and the release and keeps the data with the users who own it; install again gives the box back; --purge removes exactly what install made', () =>
  withTimeout('uninstall', 120_000, async () => {
    const ctx = box;
    const accounts = [ctx.user, `${ctx.user}-chisel`, `${ctx.user}-authelia`];
    const exists = (account: string) => spawnSync('/usr/bin/id', ['-u', account], { stdio: 'ignore' }).status === 0;
    // what systemd's CacheDirectory= holds on a box: the launcher's V8 code cache
    await mkdir(join(ctx.prefix, 'var/cache/relay-panel'), { recursive: true });
    await writeFile(join(ctx.prefix, 'var/cache/relay-panel/server.mjs.code-cache'), 'cache');
    const system = JSON.parse(await readFile(ctx.systemFile, 'utf8'));
    const run = await relay(ctx, join(ctx.releaseDir, 'server.mjs'), ['uninstall']);
    assert.is(run.code, 0, JSON.stringify(run.events) + run.stderr);
    const units = join(ctx.infra.dir, 'systemd');
    for (const gone of [join(units, 'relay-panel.service'), join(units, 'relay-panel-root.socket'), join(units, 'relay-panel-root.service'),
      join(units, 'relay-panel-renew.service'), join(units, 'relay-panel-renew.timer'), rootSocket(ctx), join(ctx.prefix, 'opt/relay-panel/current'),
      join(ctx.prefix, 'var/cache/relay-panel'), system.nginx.tlsDir, join(ctx.infra.nginxPrefix, 'sites-available', 'relay-ip-panel.conf')]) {
      assert.is(await stat(gone).catch(() => null), null, gone);
    }
    // the record of what install made stays for --purge; nothing else of the app directory
    assert.equal(await readdir(join(ctx.prefix, 'opt/relay-panel')), ['install-options.json']);
    assert.not.ok((await readFile(ctx.env.FAKE_ROOT_PIDFILE!, 'utf8').catch(() => null)), 'the root helper stopped');
    // kept: the data and the users who own it (no file is left to a deleted uid or gid)
    await stat(join(ctx.prefix, 'etc/relay-panel/config.json'));
    await stat(join(ctx.prefix, 'var/lib/relay-panel'));
    assert.ok(accounts.every(exists), 'the users stay with their files');
    assert.is((await stat(join(ctx.infra.nginxPrefix, 'sites-available'))).gid, 0);

    // an install after it: a working box again, with the same users, data and CA
    const ca = await readFile(join(ctx.infra.dir, 'pki', 'ca.pem'), 'utf8');
    const again = await install();
    assert.is(again.code, 0, JSON.stringify(again.events) + again.stderr);
    assert.is(await readFile(join(ctx.infra.dir, 'pki', 'ca.pem'), 'utf8'), ca);
    assert.is((await ipPanel(ctx, '/api/health')).status, 200);

    const purge = await relay(ctx, join(ctx.releaseDir, 'server.mjs'), ['uninstall', '--purge']);
    assert.is(purge.code, 0, JSON.stringify(purge.events));
    const purged = purge.events.filter((e) => e.step === 'purge').map((e) => String(e.message));
    assert.match(purged[0]!, `removed ${join(ctx.prefix, 'etc/relay-panel')}, ${join(ctx.prefix, 'var/lib/relay-panel')}, ${join(ctx.infra.dir, 'pki')}`);
    assert.match(purged[1]!, `removed users ${accounts.join(', ')}`);
    for (const gone of ['etc/relay-panel', 'var/lib/relay-panel', 'root/relay-panel-admin.p12', 'opt/relay-panel']) {
      assert.is(await stat(join(ctx.prefix, gone)).catch(() => null), null, gone);
    }
    for (const dir of ['pki', 'chisel', 'authelia', 'sites']) assert.is(await stat(join(ctx.infra.dir, dir)).catch(() => null), null, dir);
    assert.ok(!accounts.some(exists), 'the users install made are gone');
    // what install did not make stays: the harness's own nginx directories
    await stat(join(ctx.infra.nginxPrefix, 'sites-available'));
  }),
);

s.run();
