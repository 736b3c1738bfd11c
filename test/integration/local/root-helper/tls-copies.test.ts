// Root's copies of the TLS material nginx's root master loads (lib/root-helper/tls-*.ts): what is
// copied, what is refused and how fast, what a restage keeps, what a delete removes. Real openssl
// makes the certificates, keys, CA and CRL; the helper's own user plays the panel's.
import { execFileSync } from 'node:child_process';
import { constants } from 'node:fs';
import { chown, copyFile, lstat, mkdir, mkdtemp, open, readdir, readFile, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { pruneTlsCopies, restageTlsCopies, stageForVhosts } from '../../../../lib/root-helper/tls-copies.ts';
import { tlsSourceOwners } from '../../../../lib/root-helper/tls-owner.ts';
import { systemConfig, type SystemConfig } from '../../../../lib/system/config.ts';
import { OpensslPki } from '../../../../lib/system/pki/openssl-pki.ts';
import type { CertPaths } from '../../../../lib/system/types.ts';
import { withTimeout } from '../../../helpers/timeout.ts';
import { certPairs } from '../../../helpers/cert-pairs.ts';
import { certbotLineage, livePath } from './fixtures.ts';

const me = process.geteuid!();
const asRoot = me === 0;
const A = 'a.example.test';
const B = 'b.example.test';
const app = (fqdn: string) => `relay-app-${fqdn}.conf`;

interface Ctx { dir: string; config: SystemConfig; owners: number[]; log: string[] }
const s = suite<Ctx>('tls copies (root-owned copies for nginx)', { dir: '', config: systemConfig(), owners: [], log: [] });

/** Two certificate/key pairs made once: a lineage's, and one that is not its (root's own key, a mismatch). */
let fixtures = '';
let pairs: Record<'a' | 'b' | 'a2', CertPaths>;

s.before(async () => {
  fixtures = await mkdtemp(join(tmpdir(), 'relay-tls-fixtures-'));
  pairs = await certPairs(fixtures, { a: A, b: B, a2: A });
});
s.after(() => rm(fixtures, { recursive: true, force: true }));

s.before.each(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'relay-tls-'));
  ctx.log = [];
  ctx.owners = [me];
  ctx.config = systemConfig({
    driver: 'host',
    nginx: { sitesAvailable: join(ctx.dir, 'available'), sitesEnabled: join(ctx.dir, 'enabled'), tlsDir: join(ctx.dir, 'nginx/tls'), selfSignedDir: join(ctx.dir, 'self-signed') },
    acme: { configDir: join(ctx.dir, 'le') },
    pki: { dir: join(ctx.dir, 'pki') },
  });
  await mkdir(join(ctx.dir, 'available'));
});
s.after.each(({ dir }) => rm(dir, { recursive: true, force: true }));

const copy = (c: SystemConfig, entry: string, file: string) => join(c.nginx.tlsDir, entry, file);

/** The vhost file names in sites-available: what keeps an entry. */
async function vhostsWritten(c: SystemConfig, names: string[]): Promise<void> {
  for (const name of names) await writeFile(join(c.nginx.sitesAvailable, name), '# test\n');
}

async function refusal(p: Promise<unknown>): Promise<string> {
  return p.then(() => 'staged', (e: Error) => e.message);
}

const mode = async (path: string) => (await lstat(path)).mode & 0o777;

s('a good lineage is copied: tlsDir and the entry root\'s 0700, the files 0600, byte for byte', async ({ config, owners }) => {
  await certbotLineage(config, A, pairs.a);
  await stageForVhosts(config, [app(A)], owners);
  assert.is(await mode(config.nginx.tlsDir), 0o700);
  assert.is(await mode(join(config.nginx.tlsDir, A)), 0o700);
  for (const [file, source] of [['fullchain.pem', pairs.a.fullchain], ['privkey.pem', pairs.a.privkey]] as const) {
    const st = await lstat(copy(config, A, file));
    assert.ok(st.isFile(), file);
    assert.equal([st.uid, st.mode & 0o777], [me, 0o600], file);
    assert.ok((await readFile(copy(config, A, file))).equals(await readFile(source)), file);
  }
});

s('the IP panel, the default server and the client CA are copied from the panel\'s files', async ({ config, owners }) => {
  await mkdir(config.nginx.selfSignedDir);
  for (const name of ['ip-panel', 'default']) {
    await copyFile(pairs.b.fullchain, join(config.nginx.selfSignedDir, `${name}.pem`));
    await copyFile(pairs.b.privkey, join(config.nginx.selfSignedDir, `${name}.key`));
  }
  const pki = new OpensslPki({ openssl: '/usr/bin/openssl', dir: config.pki.dir, caCommonName: 'test-ca', clientCertDays: 2, timeoutMs: 20_000 });
  await pki.ensureCa();
  await stageForVhosts(config, ['relay-ip-panel.conf', 'relay-default.conf'], owners);
  assert.equal((await readdir(config.nginx.tlsDir)).sort(), ['client-ca', 'default', 'ip-panel']);
  assert.equal((await readdir(join(config.nginx.tlsDir, 'client-ca'))).sort(), ['ca.pem', 'crl.pem']);
  assert.is(await readFile(copy(config, 'client-ca', 'crl.pem'), 'utf8'), await readFile(join(config.pki.dir, 'crl.pem'), 'utf8'));
  assert.is(await readFile(copy(config, 'ip-panel', 'privkey.pem'), 'utf8'), await readFile(pairs.b.privkey, 'utf8'));
});

s('a live file that links anywhere but certbot\'s archive is refused, and the whole change with it: nothing is written', async ({ config, owners }) => {
  await certbotLineage(config, B, pairs.b);
  await certbotLineage(config, A, pairs.a);
  // root's own key and certificate, linked as the attack did
  await rm(livePath(config, A, 'privkey'));
  await symlink(pairs.b.privkey, livePath(config, A, 'privkey'));
  const message = await refusal(stageForVhosts(config, [app(B), app(A)], owners));
  assert.is(message, `Refused: ${livePath(config, A, 'privkey')} refused: a link to ${JSON.stringify(pairs.b.privkey)}, not ../../archive/${A}/privkey<n>.pem`);
  assert.is(await lstat(config.nginx.tlsDir).catch(() => null), null, 'nothing written, not even the good lineage');
});

s('a live link with the archive\'s shape but another target is refused: another lineage, a way out, another kind of file', async ({ config, owners }) => {
  await certbotLineage(config, A, pairs.a);
  await certbotLineage(config, B, pairs.b);
  for (const target of [`../../archive/${B}/privkey1.pem`, `../../archive/${A}/../../../secret/privkey1.pem`, `../../archive/${A}/fullchain1.pem`, `/etc/ssl/private/privkey1.pem`]) {
    await unlink(livePath(config, A, 'privkey'));
    await symlink(target, livePath(config, A, 'privkey'));
    assert.match(await refusal(stageForVhosts(config, [app(A)], owners)), `Refused: ${livePath(config, A, 'privkey')} refused: a link to ${JSON.stringify(target)}`, target);
  }
});

s('a file of another owner is refused: the panel\'s user may not hand root a file it does not own', async ({ config }) => {
  await certbotLineage(config, A, pairs.a);
  const archived = join(config.acme.configDir, 'archive', A, 'fullchain1.pem');
  // the helper's own uid stands for root; the panel's is another
  const message = await refusal(stageForVhosts(config, [app(A)], [me + 1]));
  assert.is(message, `Refused: ${archived} refused: owned by uid ${me}, not ${me + 1}`);
});

s('as root: the owner is the panel\'s user (systemd.runAs, from getent); root\'s own files, even reached through a planted archive link, are refused', async ({ dir, config }) => {
  if (!asRoot) return;
  const nobody = Number(execFileSync('/usr/bin/getent', ['passwd', 'nobody'], { encoding: 'utf8' }).split(':')[2]);
  const panel = systemConfig({ ...config, systemd: { ...config.systemd, runAs: 'nobody' } });
  assert.equal(await tlsSourceOwners(panel), [nobody]);
  assert.equal(await tlsSourceOwners(config), [0], 'a panel that runs as root (runAs null)');
  assert.match(await refusal(tlsSourceOwners(systemConfig({ ...config, systemd: { ...config.systemd, runAs: 'no-such-user-x' } }))), 'no-such-user-x is unknown');
  // links with certbot's exact text, but archive/<name> is a link to a directory of root's keys
  await certbotLineage(panel, A, pairs.a);
  const rootKeys = join(dir, 'root-only');
  await mkdir(rootKeys, { mode: 0o700 });
  await copyFile(pairs.b.fullchain, join(rootKeys, 'fullchain1.pem'));
  await copyFile(pairs.b.privkey, join(rootKeys, 'privkey1.pem'));
  await rm(join(panel.acme.configDir, 'archive', A), { recursive: true });
  await symlink(rootKeys, join(panel.acme.configDir, 'archive', A));
  await chown(join(panel.acme.configDir, 'live', A), nobody, nobody);
  const message = await refusal(stageForVhosts(panel, [app(A)], await tlsSourceOwners(panel)));
  assert.is(message, `Refused: ${join(panel.acme.configDir, 'archive', A, 'fullchain1.pem')} refused: owned by uid 0, not ${nobody}`);
});

s('a FIFO planted as a certificate is refused at once, wherever it is: live file, archive file, self-signed certificate', async ({ config, owners }) => {
  await certbotLineage(config, A, pairs.a);
  await certbotLineage(config, B, pairs.b);
  await unlink(livePath(config, A, 'fullchain'));
  execFileSync('/usr/bin/mkfifo', [livePath(config, A, 'fullchain')]);
  const archived = join(config.acme.configDir, 'archive', B, 'privkey1.pem');
  await unlink(archived);
  execFileSync('/usr/bin/mkfifo', [archived]);
  await mkdir(config.nginx.selfSignedDir);
  execFileSync('/usr/bin/mkfifo', [join(config.nginx.selfSignedDir, 'default.pem')]);
  await copyFile(pairs.b.privkey, join(config.nginx.selfSignedDir, 'default.key'));
  const fifos: Array<[string, string, string]> = [
    [app(A), livePath(config, A, 'fullchain'), 'a FIFO, not certbot\'s link or a regular file'],
    [app(B), archived, 'a FIFO, not a regular file'],
    ['relay-default.conf', join(config.nginx.selfSignedDir, 'default.pem'), 'a FIFO, not a regular file'],
  ];
  try {
    // a stage blocked in open() on a FIFO never answers: the timeout fails the test
    for (const [vhost, path, reason] of fifos) {
      assert.is(await withTimeout(vhost, 20_000, () => refusal(stageForVhosts(config, [vhost], owners))), `Refused: ${path} refused: ${reason}`);
    }
  } finally {
    // a reader a regression left blocked in open() gets its writer, so the run can end
    for (const [, path] of fifos) await open(path, constants.O_WRONLY | constants.O_NONBLOCK).then((h) => h.close(), () => undefined);
  }
});

s('a key that is not the certificate\'s is refused, and so is a file that is not what its place needs', async ({ config, owners }) => {
  await certbotLineage(config, A, pairs.a);
  const archive = join(config.acme.configDir, 'archive', A);
  const key = livePath(config, A, 'privkey');
  await copyFile(pairs.a2.privkey, join(archive, 'privkey1.pem'));
  assert.match(await refusal(stageForVhosts(config, [app(A)], owners)), `Refused: ${key} refused: not the key of the certificate for CN=${A}`);
  const cases: Array<[string, string, string]> = [
    ['privkey1.pem', `${await readFile(pairs.a.privkey, 'utf8')}${await readFile(pairs.b.privkey, 'utf8')}`, `${key} refused: not one private key (PRIVATE KEY, PRIVATE KEY)`],
    ['privkey1.pem', 'not a key\n', `${key} refused: no PEM block`],
    ['privkey1.pem', `${await readFile(pairs.a.privkey, 'utf8')}include /etc/shadow;\n`, `${key} refused: holds something besides PEM blocks`],
    ['privkey1.pem', '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n', `${key} refused: the private key does not parse`],
    ['fullchain1.pem', `${await readFile(pairs.a.fullchain, 'utf8')}${await readFile(pairs.a.privkey, 'utf8')}`, `${livePath(config, A, 'fullchain')} refused: block 2 is PRIVATE KEY, not a CERTIFICATE`],
    ['fullchain1.pem', `${await readFile(pairs.a.fullchain, 'utf8')}-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n`, `${livePath(config, A, 'fullchain')} refused: certificate 2 does not parse`],
  ];
  for (const [file, text, message] of cases) {
    await copyFile(pairs.a.fullchain, join(archive, 'fullchain1.pem'));
    await copyFile(pairs.a.privkey, join(archive, 'privkey1.pem'));
    await writeFile(join(archive, file), text);
    assert.match(await refusal(stageForVhosts(config, [app(A)], owners)), `Refused: ${message}`, message);
  }
  assert.is(await lstat(config.nginx.tlsDir).catch(() => null), null);
});

s('the client CA must parse and the CRL be one X509 CRL block', async ({ config, owners }) => {
  const pki = new OpensslPki({ openssl: '/usr/bin/openssl', dir: config.pki.dir, caCommonName: 'test-ca', clientCertDays: 2, timeoutMs: 20_000 });
  await pki.ensureCa();
  const crl = join(config.pki.dir, 'crl.pem');
  const good = await readFile(crl, 'utf8');
  await mkdir(config.nginx.selfSignedDir);
  await copyFile(pairs.b.fullchain, join(config.nginx.selfSignedDir, 'ip-panel.pem'));
  await copyFile(pairs.b.privkey, join(config.nginx.selfSignedDir, 'ip-panel.key'));
  for (const [text, reason] of [
    [await readFile(pairs.a.fullchain, 'utf8'), 'not one X509 CRL block (CERTIFICATE)'],
    [`${good}${good}`, 'not one X509 CRL block (X509 CRL, X509 CRL)'],
    ['-----BEGIN X509 CRL-----\nAAAA\n-----END X509 CRL-----\n', 'the X509 CRL block is not DER'],
  ]) {
    await writeFile(crl, text!);
    assert.is(await refusal(stageForVhosts(config, ['relay-ip-panel.conf'], owners)), `Refused: ${crl} refused: ${reason}`);
  }
});

s('a source not issued yet is no refusal: nothing is copied, and nginx -t will name the missing copy', async ({ config, owners }) => {
  await stageForVhosts(config, [app(A)], owners);
  assert.is(await lstat(config.nginx.tlsDir).catch(() => null), null);
});

s('a restage copies a renewed lineage and a new CRL, and rewrites nothing that did not change', async ({ config, owners, log }) => {
  await certbotLineage(config, A, pairs.a);
  await mkdir(config.nginx.selfSignedDir);
  await copyFile(pairs.b.fullchain, join(config.nginx.selfSignedDir, 'ip-panel.pem'));
  await copyFile(pairs.b.privkey, join(config.nginx.selfSignedDir, 'ip-panel.key'));
  const pki = new OpensslPki({ openssl: '/usr/bin/openssl', dir: config.pki.dir, caCommonName: 'test-ca', clientCertDays: 2, timeoutMs: 20_000 });
  const client = await pki.issueClientCert('agent:x');
  await vhostsWritten(config, [app(A), 'relay-ip-panel.conf']);
  await stageForVhosts(config, [app(A), 'relay-ip-panel.conf'], owners);
  const inode = async (entry: string, file: string) => (await lstat(copy(config, entry, file))).ino;
  const before = { key: await inode('ip-panel', 'privkey.pem'), crl: await inode('client-ca', 'crl.pem') };
  // certbot renews (links to fullchain2/privkey2); the panel revokes a client certificate
  await certbotLineage(config, A, pairs.a2, 2);
  await pki.revoke(client.serial);
  await restageTlsCopies(config, owners, (line) => log.push(line));
  assert.equal(log, []);
  assert.is(await readFile(copy(config, A, 'privkey.pem'), 'utf8'), await readFile(pairs.a2.privkey, 'utf8'));
  assert.is(await readFile(copy(config, A, 'fullchain.pem'), 'utf8'), await readFile(pairs.a2.fullchain, 'utf8'));
  assert.is(await readFile(copy(config, 'client-ca', 'crl.pem'), 'utf8'), await readFile(join(config.pki.dir, 'crl.pem'), 'utf8'));
  assert.is.not(await inode('client-ca', 'crl.pem'), before.crl, 'the new CRL is a new file');
  assert.is(await inode('ip-panel', 'privkey.pem'), before.key, 'an unchanged source is not rewritten');
});

s('a restage keeps the previous copy of a refused or vanished source, says so in one line each, and goes on with the rest', async ({ config, owners, log }) => {
  await certbotLineage(config, A, pairs.a);
  await certbotLineage(config, B, pairs.b);
  await vhostsWritten(config, [app(A), app(B)]);
  await stageForVhosts(config, [app(A), app(B)], owners);
  const kept = await readFile(copy(config, A, 'privkey.pem'), 'utf8');
  await unlink(livePath(config, A, 'privkey'));
  await symlink(pairs.b.privkey, livePath(config, A, 'privkey'));
  await rm(join(config.acme.configDir, 'live', B), { recursive: true });
  // a renewal of another lineage still gets through
  await certbotLineage(config, 'c.example.test', pairs.a);
  await vhostsWritten(config, [app('c.example.test')]);
  const answered = await restageTlsCopies(config, owners, (line) => log.push(line));
  assert.is(await readFile(copy(config, A, 'privkey.pem'), 'utf8'), kept);
  assert.ok(await lstat(copy(config, B, 'privkey.pem')), 'B kept');
  assert.ok(await lstat(copy(config, 'c.example.test', 'privkey.pem')), 'a vhost\'s entry without a copy yet is copied');
  assert.equal(log.sort(), [
    `tls copies: kept ${join(config.nginx.tlsDir, A)} as it was: ${livePath(config, A, 'privkey')} refused: a link to ${JSON.stringify(pairs.b.privkey)}, not ../../archive/${A}/privkey<n>.pem`,
    `tls copies: kept ${join(config.nginx.tlsDir, B)} as it was: ${livePath(config, B, 'fullchain')} does not exist`,
  ]);
  // answered too: the helper refuses a reload that keeps the client CA's old CRL
  assert.equal(answered.sort((x, y) => x.entry.localeCompare(y.entry)), [
    { entry: A, why: `${livePath(config, A, 'privkey')} refused: a link to ${JSON.stringify(pairs.b.privkey)}, not ../../archive/${A}/privkey<n>.pem`, named: true },
    { entry: B, why: `${livePath(config, B, 'fullchain')} does not exist`, named: true },
  ]);
});

s('after a delete, the entries no relay vhost names are removed; those still named (enabled or not) stay', async ({ config, owners }) => {
  await certbotLineage(config, A, pairs.a);
  await certbotLineage(config, B, pairs.b);
  await vhostsWritten(config, [app(A), `relay-site-${B}.conf`]);
  await stageForVhosts(config, [app(A), `relay-site-${B}.conf`], owners);
  await unlink(join(config.nginx.sitesAvailable, app(A)));
  // an entry of a name the operator's own vhost uses is no relay vhost's: not kept for it
  await writeFile(join(config.nginx.sitesAvailable, `other-${A}.conf`), '# the operator\'s\n');
  assert.equal(await pruneTlsCopies(config), [A]);
  assert.equal(await readdir(config.nginx.tlsDir), [B]);
  assert.equal(await pruneTlsCopies(config), []);
});

s('a copy replaced by something else is rewritten as the helper\'s own file', async ({ config, owners }) => {
  await certbotLineage(config, A, pairs.a);
  await stageForVhosts(config, [app(A)], owners);
  await unlink(copy(config, A, 'privkey.pem'));
  await symlink(pairs.b.privkey, copy(config, A, 'privkey.pem'));
  await stageForVhosts(config, [app(A)], owners);
  const st = await lstat(copy(config, A, 'privkey.pem'));
  assert.ok(st.isFile());
  assert.is(await readFile(copy(config, A, 'privkey.pem'), 'utf8'), await readFile(pairs.a.privkey, 'utf8'));
  assert.is(dirname(copy(config, A, 'privkey.pem')), join(config.nginx.tlsDir, A));
});

s.run();
