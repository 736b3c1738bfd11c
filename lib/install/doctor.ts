// `relay-panel doctor`: looks at a running box and names each problem with its fix.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readdir, readFile, statfs } from 'node:fs/promises';
import { join } from 'node:path';
import { nginxArgs } from '../system/proxy/host.ts';
import { createHostSystem } from '../system/host-system.ts';
import { unitHealth } from './unit-restarts.ts';
import { portFindings } from './listen-check.ts';
import { ipPanelCertPaths } from '../system/proxy/renderer.ts';
import { failureOutput, summarizeStderr } from '../system/common/exec.ts';
import type { Installation } from './installation.ts';
import { KEEP_RELEASES } from './options.ts';
import { readInstallRecord } from './install-record.ts';
import { readInstalledConfig } from './installed-config.ts';
import { vhostBoundaryProblems } from './vhost-privileges.ts';
import { rootPathProblems } from './root-paths.ts';
import { leftoverSudoRules, rootHelperSocketUnit } from './steps/root-helper.ts';
import { relayVhostFiles } from './files.ts';
// the same edges as the alerts: doctor names what a webhook would be told of
import { DISK_LOW_FRACTION, EXPIRING_DAYS } from '../alerts/box-watch.ts';
import { legacyCertbotDropIn, renewalUnits } from './renewals.ts';
import { renewUnitNames } from '../system/certs/renew-units.ts';
import { entryExists, readOrNull } from '../system/common/fs.ts';
import { vhostIntact } from '../system/proxy/vhost-stamp.ts';
import { chiselFingerprint, hostKeyPath } from '../system/tunnel-server/host-key.ts';
import { readOwnedText } from '../system/common/owned-file.ts';
import { listEntries } from '../root-helper/tls-dir.ts';
import { usesTlsCopies } from '../system/proxy/tls-copy-paths.ts';
import { certPaths } from '../system/certs/host.ts';
import { panelOwner } from './users.ts';
import { vhostName } from '../system/proxy/templates.ts';
import { DEFAULT_VHOST } from '../host-state/vhost-specs.ts';
import type { Reporter } from './report.ts';
import { dns01Findings, statProbe } from './doctor-dns01.ts';
import { DPKG_STATUS_ARGS, isInstalledStatus } from '../system/packages/apt.ts';
import { streamFindings } from './stream-doctor.ts';
import { bucketFindings } from './bucket-doctor.ts';
import { trafficFindings } from './traffic-doctor.ts';
import { snapshotFinding } from './steps/snapshot.ts';

export interface Finding {
  check: string;
  ok: boolean;
  message: string;
  fix?: string;
}

const MIN_FREE_BYTES = 1024 ** 3;

async function pemExpiry(path: string): Promise<Date | null> {
  const pem = await readFile(path, 'utf8').catch(() => null);
  return pem ? new Date(new X509Certificate(pem).validTo) : null;
}

/** The files nginx loads: root's copies (the root helper's), or a root panel's own files. */
function servedFiles(inst: Installation): { caCert: string; crl: string; ipPanel: string; lineages(): Promise<Array<{ fqdn: string; fullchain: string }>> } {
  const s = inst.system;
  const copy = (entry: string, file: string) => join(s.nginx.tlsDir, entry, file);
  if (usesTlsCopies(s)) {
    return {
      caCert: copy('client-ca', 'ca.pem'), crl: copy('client-ca', 'crl.pem'), ipPanel: copy('ip-panel', 'fullchain.pem'),
      lineages: async () => (await listEntries(s.nginx.tlsDir).catch(() => [] as string[])).filter((e) => e.includes('.')).map((fqdn) => ({ fqdn, fullchain: copy(fqdn, 'fullchain.pem') })),
    };
  }
  const live = join(s.acme.configDir, 'live');
  return {
    caCert: join(s.pki.dir, 'ca.pem'), crl: join(s.pki.dir, 'crl.pem'), ipPanel: ipPanelCertPaths(s.nginx.selfSignedDir).fullchain,
    lineages: async () => (await readdir(live).catch(() => [] as string[])).filter((e) => e.includes('.')).map((fqdn) => ({ fqdn, fullchain: certPaths(s, fqdn).fullchain })),
  };
}

/** The fingerprint of chisel's key, read as root reads the panel's files (owned-file.ts). */
async function tunnelKeyFingerprint(inst: Installation, path: string): Promise<string | null> {
  const owner = await panelOwner(inst);
  const text = await readOwnedText(path, { owners: [owner.uid], maxBytes: 64 * 1024 });
  return text === null ? null : chiselFingerprint(createPrivateKey(text));
}

/** nextUpdate of a PEM CRL (root's copy), read by openssl (node has no CRL parser). */
async function crlNextUpdate(inst: Installation, path: string): Promise<Date | null> {
  const r = await inst.run(inst.system.binaries.openssl, ['crl', '-in', path, '-noout', '-nextupdate']).catch(() => null);
  const m = r && /nextUpdate=(.+)/.exec(r.stdout);
  return m ? new Date(m[1]!.trim()) : null;
}

async function handEditedVhosts(dir: string): Promise<string[]> {
  const names = await relayVhostFiles(dir);
  const texts = await Promise.all(names.map((name) => readFile(join(dir, name), 'utf8').catch(() => null)));
  return names.filter((_, i) => texts[i] !== null && !vhostIntact(texts[i]!));
}

export async function diagnose(inst: Installation, now = Date.now()): Promise<Finding[]> {
  const { system: s, layout: l } = inst;
  const config = await readInstalledConfig(inst);
  const completed = config.onboarding.status === 'COMPLETED';
  const out: Finding[] = [];
  const add = (check: string, ok: boolean, message: string, fix?: string) => out.push({ check, ok, message, ...(ok || !fix ? {} : { fix }) });

  const test = await inst.run(s.binaries.nginx, [...nginxArgs(s), '-t', '-q']).then(() => null, (e: unknown) => summarizeStderr(failureOutput(e), 3));
  add('nginx', test === null, test === null ? 'configuration test passes' : `configuration test fails: ${test}`,
    'fix or remove the vhost nginx names, then: nginx -t && systemctl reload nginx');
  if (test === null) {
    // a configuration that tests fine can still fail to load (a port taken): reload and watch the error log
    const reload = await createHostSystem(s, { dataDir: config.dataDir }).proxy.reload().then(() => null, (e: Error) => e.message);
    add('nginx', reload === null, reload ?? 'reload succeeds', `systemctl status ${s.units.proxy}; the lines above come from ${s.nginx.errorLog}`);
  }

  if (inst.options.user !== 'root') {
    const boundary = await vhostBoundaryProblems(inst);
    add('vhosts', boundary.length === 0, boundary.length ? boundary.join('; ') : 'vhosts are root\'s; the panel changes them through the root helper',
      'relay-panel install puts owners, modes and the helper back');
    const units = renewalUnits(inst);
    const stale = [];
    for (const unit of units) if ((await readOrNull(unit.path)) !== unit.content) stale.push(unit.path);
    const legacy = (await entryExists(legacyCertbotDropIn(s))) ? [legacyCertbotDropIn(s)] : [];
    add('renewals', stale.length + legacy.length === 0,
      stale.length ? `not what this release writes: ${stale.join(', ')}` : legacy.length ? `an earlier release's drop-in makes Debian's certbot run as ${inst.options.user}: ${legacy[0]}`
        : `the panel's certificates renew from ${units[1]!.name} as ${inst.options.user}; Debian's certbot.timer is the operator's`,
      'relay-panel install writes them (a second run keeps everything else)');
    // the rule of the privilege boundary: nothing root uses may be changed by a less privileged user
    const roots = await rootPathProblems(inst);
    add('root-paths', roots.length === 0, roots.length ? roots.map((r) => r.problem).join('; ') : 'every path root reads, runs or loads is root\'s alone; what root copies of the panel\'s passes its checks',
      [...new Set(roots.map((r) => r.fix))].join('; '));
    const sudoers = await leftoverSudoRules(l);
    add('privileges', sudoers === null, sudoers ? `a sudo rule for the panel is left from an earlier release: ${sudoers}` : 'no sudo rule: the panel reaches root only through the root helper',
      `rm ${sudoers}; relay-panel upgrade and install remove it too`);
  }

  const edited = await handEditedVhosts(s.nginx.sitesAvailable);
  add('vhost-edits', edited.length === 0, edited.length ? `edited by hand since relay-panel wrote them: ${edited.join(', ')}` : 'every relay vhost is as relay-panel wrote it',
    `nginx serves the edit until relay-panel writes the vhost again: systemctl restart ${s.units.panel} rewrites every relay vhost from the records; keep nginx changes of your own in files not named relay-*`);

  // an operator's own bucket size stands (the default server leaves it out): too small fails the next long name
  for (const f of await bucketFindings(s.nginx.conf, s.nginx.sitesAvailable)) add('nginx-buckets', f.ok, f.message, f.fix);

  const streams = await streamFindings(s);
  add('stream-tunnels', streams.ok, streams.message, streams.fix);

  const traffic = await trafficFindings(s.nginx.trafficPort, s.units.panel);
  add('traffic', traffic.ok, traffic.message, traffic.fix);

  const catchAll = join(s.nginx.sitesEnabled, vhostName(DEFAULT_VHOST));
  const linked = await entryExists(catchAll);
  add('default-server', linked, linked ? `${catchAll}: names without a vhost get a 404` : `no default server (${catchAll}): a name without a vhost gets the first vhost of its port`,
    'relay-panel install writes it (a second run keeps everything else)');

  const key = hostKeyPath(s.chisel.dir);
  const fingerprint = await tunnelKeyFingerprint(inst, key).catch((e: Error) => `unreadable: ${e.message}`);
  add('tunnel-key', fingerprint !== null && !fingerprint.startsWith('unreadable'), fingerprint ? `tunnel server host key ${key}: ${fingerprint}` : `no tunnel server host key at ${key}`,
    `put it back from a backup (clients pinned its fingerprint); else relay-panel install makes a new one, and every client must pin the new fingerprint`);

  // what nginx serves: root's checked copies (the root helper's), never the panel's files themselves;
  // a panel run as root has no copies: nginx loads its files, which are root's
  const days = (d: Date) => Math.floor((d.getTime() - now) / 86_400_000);
  const served = servedFiles(inst);
  const certs: Array<[string, string, string]> = [
    ['client CA', served.caCert, join(s.pki.dir, 'ca.pem')],
    ['IP panel certificate', served.ipPanel, ipPanelCertPaths(s.nginx.selfSignedDir).fullchain],
  ];
  for (const [what, path, source] of certs) {
    const expiry = await pemExpiry(path);
    if (!expiry) add('certificates', false, `${what} missing (${path})`, 'relay-panel install recreates it');
    else add('certificates', days(expiry) >= EXPIRING_DAYS, `${what} expires ${expiry.toISOString().slice(0, 10)} (${days(expiry)} days)`,
      `renew it: remove ${source} and run relay-panel install`);
  }
  if (completed) {
    for (const { fqdn, fullchain } of await served.lineages()) {
      const expiry = await pemExpiry(fullchain);
      if (!expiry) continue;
      add('certificates', days(expiry) >= EXPIRING_DAYS, `${fqdn} expires ${expiry.toISOString().slice(0, 10)} (${days(expiry)} days)`,
        `systemctl start ${renewUnitNames(s).service} renews it as ${inst.options.user}; journalctl -u ${renewUnitNames(s).service} says why it did not`);
    }
  }

  const owner = await panelOwner(inst).catch(() => null);
  for (const f of await dns01Findings(config, {
    installed: async (pkg) => isInstalledStatus((await inst.run(inst.tools.dpkgQuery, DPKG_STATUS_ARGS(pkg), [1]).catch(() => ({ stdout: '' }))).stdout),
    fileOf: statProbe,
    panelUid: owner?.uid ?? -1,
  })) add('dns01', f.ok, f.message, f.fix);

  const crl = served.crl;
  const next = await crlNextUpdate(inst, crl);
  const pki = join(s.pki.dir, 'ca.cnf');
  add('crl', next !== null && next.getTime() > now, next ? `CRL valid until ${next.toISOString().slice(0, 10)}` : `no readable CRL at ${crl}`,
    // openssl reads ca.cnf, which the panel's user writes: it runs as that user, never as root, and
    // in a session of its own, so it cannot type into root's terminal (TIOCSTI)
    `nginx refuses every client certificate with an expired CRL; regenerate it as ${inst.options.user}: setsid -w runuser -u ${inst.options.user} -- ${s.binaries.openssl} ca -config ${pki} -gencrl -crlexts crl_ext -out ${join(s.pki.dir, 'crl.pem')} && ${inst.layout.rootCall} nginx-reload`);

  const helper = inst.options.user === 'root' ? [] : [rootHelperSocketUnit];
  const units = [s.units.proxy, `${s.units.panel}.socket`, s.units.panel, ...helper, ...(completed ? [s.units['tunnel-server'], s.units['auth-portal']] : [])];
  for (const unit of units) {
    const f = await unitHealth(inst, unit);
    add('units', f.ok, f.message, f.fix);
  }

  for (const f of await portFindings(s, config, completed)) add('ports', f.ok, f.message, f.fix);

  if (config.domain) {
    const dns = createHostSystem(s, { dataDir: config.dataDir }).dns;
    for (const name of [config.domain, `panel.${config.domain}`]) {
      const answers = await dns.resolve4(name).catch(() => [] as string[]);
      add('dns', answers.includes(config.ip), `${name} resolves to ${answers.join(', ') || 'nothing'}`,
        `create A records ${config.domain} and *.${config.domain} pointing to ${config.ip}`);
    }
  } else {
    add('dns', true, 'no domain yet (onboarding not started)');
  }

  const snapshot = await snapshotFinding(inst);
  add('snapshot', snapshot.ok, snapshot.message, snapshot.fix);

  const fs = await statfs(config.dataDir).catch(() => null);
  if (fs) {
    const free = fs.bavail * fs.bsize;
    const share = fs.bavail / fs.blocks;
    add('disk', free >= MIN_FREE_BYTES && share >= DISK_LOW_FRACTION, `${(free / 1024 ** 3).toFixed(1)} GiB free (${Math.round(share * 100)}%) on ${config.dataDir}`,
      `free space: journalctl --vacuum-size=200M, apt-get clean; each upgrade keeps ${(await readInstallRecord(l.installRecord)).keepReleases ?? KEEP_RELEASES} releases in ${l.releasesDir} and removes older ones (--keep-releases 2: only the new one and the one it replaced)`);
  } else {
    add('disk', false, `cannot read ${config.dataDir}`, 'relay-panel install recreates it');
  }
  return out;
}

/** Prints every finding; true when nothing is wrong. */
export async function doctor(inst: Installation, report: Reporter): Promise<boolean> {
  const findings = await diagnose(inst);
  for (const f of findings) report.step({ step: f.check, status: f.ok ? 'done' : 'failed', message: f.message, ...(f.fix ? { fix: f.fix } : {}) });
  const problems = findings.filter((f) => !f.ok).length;
  report.text([problems ? `${problems} problem(s) found` : 'no problems found'], { problems });
  return problems === 0;
}
