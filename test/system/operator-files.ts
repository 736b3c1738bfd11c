// What the box holds before relay-panel arrives and must hold after it leaves: the operator's own
// Let's Encrypt lineage in Debian's /etc/letsencrypt (root's, keys 0600), beside the certbot
// package's cli.ini; and, for the attack suite, a module OpenSSL would load from a configuration
// that names it, which records the uid that loaded it where only root can write.
import { execFile } from 'node:child_process';
import { chmod, mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const OPERATOR_LINEAGE = 'other.example.org';
/** Where the witness module lies in the box (root's, readable by all: the panel's user copies it). */
export const WITNESS_MODULE = '/usr/local/share/relay-test/witness.so';
/** Written by the module's constructor: only root can create a file in /root. */
export const OPENSSL_WITNESS = '/root/relay-witness-openssl';

const RENEWAL = (name: string) => `version = 2.1.0
archive_dir = /etc/letsencrypt/archive/${name}
cert = /etc/letsencrypt/live/${name}/cert.pem
privkey = /etc/letsencrypt/live/${name}/privkey.pem
chain = /etc/letsencrypt/live/${name}/chain.pem
fullchain = /etc/letsencrypt/live/${name}/fullchain.pem

[renewalparams]
account = 0123456789abcdef0123456789abcdef
authenticator = standalone
server = https://acme-v02.api.letsencrypt.org/directory
key_type = ecdsa
`;

/** A lineage as certbot lays it out (a year left: Debian's certbot.timer finds nothing due). */
export async function operatorLineage(root: string): Promise<void> {
  const le = join(root, 'etc/letsencrypt');
  const archive = join(le, 'archive', OPERATOR_LINEAGE);
  const live = join(le, 'live', OPERATOR_LINEAGE);
  for (const dir of [archive, live, join(le, 'renewal'), join(le, 'keys')]) await mkdir(dir, { recursive: true, mode: 0o700 });
  await run('/usr/bin/openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '365',
    '-subj', `/CN=${OPERATOR_LINEAGE}`, '-keyout', join(archive, 'privkey1.pem'), '-out', join(archive, 'cert1.pem')]);
  await chmod(join(archive, 'privkey1.pem'), 0o600);
  await writeFile(join(archive, 'chain1.pem'), '');
  await run('/bin/sh', ['-c', `cat "${join(archive, 'cert1.pem')}" > "${join(archive, 'fullchain1.pem')}"`]);
  for (const kind of ['cert', 'chain', 'fullchain', 'privkey']) await symlink(`../../archive/${OPERATOR_LINEAGE}/${kind}1.pem`, join(live, `${kind}.pem`));
  await writeFile(join(le, 'renewal', `${OPERATOR_LINEAGE}.conf`), RENEWAL(OPERATOR_LINEAGE));
  await run('/bin/sh', ['-c', `cp "${join(archive, 'privkey1.pem')}" "${join(le, 'keys', '0000_key-certbot.pem')}"`]);
  await chmod(join(le, 'keys', '0000_key-certbot.pem'), 0o600);
}

const WITNESS_SOURCE = `#include <stdio.h>
#include <unistd.h>
__attribute__((constructor)) static void witness(void) {
  FILE *f = fopen("${OPENSSL_WITNESS}", "w");
  if (f) { fprintf(f, "%d\\n", (int)getuid()); fclose(f); }
}
int OSSL_provider_init(const void *a, const void *b, const void **c, void **d) { (void)a; (void)b; (void)c; (void)d; return 0; }
`;

/** The module, built with the host's gcc into the box. */
export async function witnessModule(root: string, scratch: string): Promise<void> {
  await writeFile(join(scratch, 'witness.c'), WITNESS_SOURCE);
  const target = join(root, WITNESS_MODULE.slice(1));
  await mkdir(join(target, '..'), { recursive: true });
  await run('/usr/bin/gcc', ['-shared', '-fPIC', '-o', target, join(scratch, 'witness.c')]);
  await chmod(target, 0o644);
}
