// Certbot 2.1's layout of a config directory, for tests that move or give back lineages without an
// ACME server: numbered archive files, relative live links, the README, the renewal configuration and
// the account it names.
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AcmeDirs } from '../../lib/install/acme-move.ts';

/** A renewal configuration as certbot 2.1 writes it for `certonly --webroot` with the panel's flags. */
export function renewalConf(dirs: AcmeDirs, name: string, o: { hook?: string; account?: string; preHook?: string; extra?: string } = {}): string {
  const c = dirs.configDir;
  return `# renew_before_expiry = 30 days
version = 2.1.0
archive_dir = ${c}/archive/${name}
cert = ${c}/live/${name}/cert.pem
privkey = ${c}/live/${name}/privkey.pem
chain = ${c}/live/${name}/chain.pem
fullchain = ${c}/live/${name}/fullchain.pem

# Options used in the renewal process
[renewalparams]
account = ${o.account ?? 'b9b4020030985ccaecd7c4d962960a42'}
${o.hook ? `renew_hook = ${o.hook}\n` : ''}${o.preHook ? `pre_hook = ${o.preHook}\n` : ''}${o.extra ?? ''}config_dir = ${c}
work_dir = ${dirs.workDir}
logs_dir = ${dirs.logsDir}
server = https://acme-v02.api.letsencrypt.org/directory
authenticator = webroot
webroot_path = ${dirs.webroot},
key_type = ecdsa
[[webroot_map]]
${name} = ${dirs.webroot}
`;
}

export const KINDS = ['cert', 'chain', 'fullchain', 'privkey'];

/** A lineage as certbot leaves it: numbered archive files, relative live links, the README, its configuration. */
export async function lineage(dirs: AcmeDirs, name: string, o: { hook?: string; account?: string; versions?: number; preHook?: string } = {}): Promise<void> {
  const c = dirs.configDir;
  const versions = o.versions ?? 1;
  await mkdir(join(c, 'archive', name), { recursive: true });
  for (let v = 1; v <= versions; v++) {
    for (const k of KINDS) await writeFile(join(c, 'archive', name, `${k}${v}.pem`), `${k} ${v} of ${name}\n`, { mode: k === 'privkey' ? 0o600 : 0o644 });
  }
  await mkdir(join(c, 'live', name), { recursive: true });
  for (const k of KINDS) await symlink(`../../archive/${name}/${k}${versions}.pem`, join(c, 'live', name, `${k}.pem`));
  await writeFile(join(c, 'live', name, 'README'), 'This directory contains your keys and certificates.\n');
  await mkdir(join(c, 'renewal'), { recursive: true });
  await writeFile(join(c, 'renewal', `${name}.conf`), renewalConf(dirs, name, o));
}

export async function account(configDir: string, id: string): Promise<void> {
  const dir = join(configDir, 'accounts', 'acme-v02.api.letsencrypt.org', 'directory', id);
  await mkdir(dir, { recursive: true });
  for (const f of ['meta.json', 'regr.json']) await writeFile(join(dir, f), `{"${f}": "${id}"}`);
  await writeFile(join(dir, 'private_key.json'), `{"key": "${id}"}`, { mode: 0o400 });
}

