// Trees as an earlier release left them for the give-back tests (lib/install/give-back.ts):
// certbot's layout chowned whole to the panel's user (a fake uid, 4242: no such user is needed),
// with what a compromised panel user could have planted in it, and a way to read a tree back with
// owners, modes and link texts.
import { execFileSync } from 'node:child_process';
import { chmod, chown, lchown, lstat, mkdir, readdir, readFile, readlink, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KINDS, renewalConf as certbotRenewalConf } from '../../helpers/certbot-tree.ts';

export const PANEL = { uid: 4242, gid: 4242 };
export const OTHER = 5151;
export const ACCOUNT = 'b9b4020030985ccaecd7c4d962960a42';
export const OPERATOR = 'operator.example.org';
export { KINDS };

export interface Dirs { configDir: string; workDir: string; logsDir: string; webroot: string }

export const dirsUnder = (base: string): Dirs => ({
  configDir: join(base, 'etc/letsencrypt'),
  workDir: join(base, 'var/lib/letsencrypt'),
  logsDir: join(base, 'var/log/letsencrypt'),
  webroot: join(base, 'var/www/html'),
});

let pem: { key: string; cert: string } | null = null;

/** A key and a self-signed certificate for the operator's name, made once by openssl. */
export function operatorPem(tmp: string): { key: string; cert: string } {
  if (pem) return pem;
  const key = join(tmp, 'op.key');
  const cert = join(tmp, 'op.crt');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', cert,
    '-subj', `/CN=${OPERATOR}`, '-addext', `subjectAltName=DNS:${OPERATOR}`, '-days', '90'], { stdio: 'ignore' });
  pem = { key: execFileSync('cat', [key]).toString(), cert: execFileSync('cat', [cert]).toString() };
  return pem;
}

/** A renewal configuration as certbot 2.1 writes it for `certonly --webroot`, with `extra` lines in its parameters. */
export const renewalConf = (d: Dirs, name: string, extra = ''): string => certbotRenewalConf(d, name, { account: ACCOUNT, extra });

/** Every entry under dir, links not followed, chowned to uid:gid. */
export async function chownTree(dir: string, uid: number, gid: number): Promise<void> {
  await lchown(dir, uid, gid);
  const st = await lstat(dir);
  if (!st.isDirectory()) return;
  for (const name of await readdir(dir)) await chownTree(join(dir, name), uid, gid);
}

export const mkfifo = (path: string) => execFileSync('mkfifo', ['-m', '0644', path]);

/** Sets a default ACL granting uid 4242 rwx on a directory (what `setfacl -d -m u:4242:rwx` does), through python3. */
export function setDefaultAcl(dir: string): void {
  execFileSync('/usr/bin/python3', ['-c', `
import os, struct, sys
e = lambda tag, perm, id=0xffffffff: struct.pack('<HHI', tag, perm, id)
os.setxattr(sys.argv[1], 'system.posix_acl_default', struct.pack('<I', 2) + e(1, 7) + e(2, 7, 4242) + e(4, 5) + e(0x10, 7) + e(0x20, 5))
`, dir]);
}

export const xattrs = (path: string): string[] =>
  JSON.parse(execFileSync('/usr/bin/python3', ['-c', 'import json, os, sys; print(json.dumps(os.listxattr(sys.argv[1], follow_symlinks=False)))', path]).toString());

/**
 * The earlier release's /etc/letsencrypt with the operator's lineage in it, all the panel's user's,
 * and what that user planted. Returns nothing: the tests know the names.
 */
export async function certbotConfigTree(d: Dirs, tmp: string): Promise<void> {
  const c = d.configDir;
  const { key, cert } = operatorPem(tmp);
  const acct = join(c, 'accounts/acme-v02.api.letsencrypt.org/directory', ACCOUNT);
  await mkdir(acct, { recursive: true, mode: 0o700 });
  await writeFile(join(acct, 'meta.json'), '{"creation_host": "box"}');
  await writeFile(join(acct, 'regr.json'), '{"body": {}}');
  await writeFile(join(acct, 'private_key.json'), '{"n": "..."}', { mode: 0o400 });
  for (const sub of ['archive', 'live', 'keys']) await mkdir(join(c, sub), { recursive: true, mode: 0o700 });
  await mkdir(join(c, 'archive', OPERATOR), { recursive: true });
  const files: Record<string, string> = { cert, chain: cert, fullchain: cert + cert, privkey: key };
  for (const k of KINDS) await writeFile(join(c, 'archive', OPERATOR, `${k}1.pem`), files[k]!, { mode: k === 'privkey' ? 0o600 : 0o644 });
  await mkdir(join(c, 'live', OPERATOR), { recursive: true });
  for (const k of KINDS) await symlink(`../../archive/${OPERATOR}/${k}1.pem`, join(c, 'live', OPERATOR, `${k}.pem`));
  await writeFile(join(c, 'live', OPERATOR, 'README'), 'This directory contains your keys and certificates.\n');
  await writeFile(join(c, 'live/README'), 'This directory contains your keys and certificates.\n');
  await mkdir(join(c, 'renewal'), { recursive: true });
  await writeFile(join(c, 'renewal', `${OPERATOR}.conf`), renewalConf(d, OPERATOR));
  await writeFile(join(c, 'keys/0000_key-certbot.pem'), key, { mode: 0o600 });
  await writeFile(join(c, 'keys/setuid-tool'), '#!/bin/sh\n', { mode: 0o755 });
  await mkdir(join(c, 'csr'), { recursive: true });
  for (const stage of ['pre', 'deploy', 'post']) await mkdir(join(c, 'renewal-hooks', stage), { recursive: true });

  // planted by the panel's user
  await writeFile(join(c, 'renewal-hooks/pre/planted'), '#!/bin/sh\ntouch /root/pwned\n', { mode: 0o755 });
  await mkdir(join(c, 'renewal-hooks/deploy/sub'));
  await writeFile(join(c, 'renewal-hooks/deploy/sub/x'), '#!/bin/sh\n', { mode: 0o755 });
  await writeFile(join(c, 'renewal-hooks/post/evil'), '#!/bin/sh\ntouch /root/pwned\n', { mode: 0o755 });
  await writeFile(join(c, 'renewal', 'hooked.example.org.conf'), renewalConf(d, 'hooked.example.org', 'pre_hook = touch /root/pwned\n'));
  await writeFile(join(c, 'renewal', 'panelpath.example.org.conf'), renewalConf({ ...d, workDir: join(d.workDir, '../relay-panel-acme') }, 'panelpath.example.org'));
  await writeFile(join(c, 'cli.ini'), 'max-log-backups = 0\ndeploy-hook = touch /root/pwned\n');
  await mkdir(join(c, 'live/x'));
  await symlink('/etc/shadow', join(c, 'live/x/privkey.pem'));
  await symlink('/etc', join(c, 'archive/y'));
  await mkdir(join(c, 'live/fifo.example.org'));
  mkfifo(join(c, 'live/fifo.example.org/fullchain.pem'));

  await chownTree(c, PANEL.uid, PANEL.gid);
  await chmod(join(c, 'keys/setuid-tool'), 0o4755);
  await chmod(join(c, 'csr'), 0o777);
  // the operator's, or another user's: left as they are
  await chown(join(c, 'renewal-hooks/post'), 0, 0);
  await writeFile(join(c, 'renewal-hooks/post/operator-mail'), '#!/bin/sh\n', { mode: 0o755 });
  await writeFile(join(c, 'keys/0001_key-other.pem'), key, { mode: 0o600 });
  await chown(join(c, 'keys/0001_key-other.pem'), OTHER, OTHER);
  await symlink('/etc/hostname', join(c, 'live/operator-note'));
  await mkdir(join(c, 'other-user'));
  await writeFile(join(c, 'other-user/inside.pem'), 'x');
  await chown(join(c, 'other-user/inside.pem'), PANEL.uid, PANEL.gid);
  await chown(join(c, 'other-user'), OTHER, OTHER);
  // the panel's own new ACME directory, which panelpath.example.org's configuration names
  await mkdir(join(d.workDir, '../relay-panel-acme'), { recursive: true });
  await chown(join(d.workDir, '../relay-panel-acme'), PANEL.uid, PANEL.gid);
}

export interface Entry { type: string; uid: number; gid: number; mode: number; target?: string }

/** Every entry under dir (not following links), by path relative to dir. */
export async function readTree(dir: string): Promise<Record<string, Entry>> {
  const out: Record<string, Entry> = {};
  const walk = async (rel: string) => {
    for (const name of (await readdir(join(dir, rel))).sort()) {
      const sub = rel ? `${rel}/${name}` : name;
      const st = await lstat(join(dir, sub));
      const type = st.isSymbolicLink() ? 'link' : st.isDirectory() ? 'dir' : st.isFIFO() ? 'fifo' : st.isFile() ? 'file' : 'other';
      out[sub] = { type, uid: st.uid, gid: st.gid, mode: st.mode & 0o7777, ...(type === 'link' ? { target: await readlink(join(dir, sub)) } : {}) };
      if (type === 'dir') await walk(sub);
    }
  };
  await walk('');
  return out;
}

export const text = (path: string) => readFile(path, 'utf8');
