// The `pki`, `vhost-material` and `host-key` tasks: the client CA, the admin certificate, the
// self-signed certificates, the help page and the tunnel server's key are made by the panel's user
// in the panel's directories. OpenSSL reads the CA's configuration there, which that user can
// change: run as root it would load whatever module the file names.
import { chmod } from 'node:fs/promises';
import { join } from 'node:path';
import { ensureHostKey, HOST_KEY_MODE } from '../../system/tunnel-server/host-key.ts';
import { pathExists } from '../../system/common/fs.ts';
import type { SystemConfig } from '../../system/config.ts';
import { certPaths } from '../../system/certs/host.ts';
import { hostVhostLayout } from '../../system/proxy/host.ts';
import { createVhostPreparer, systemRendererOptions } from '../../system/proxy/renderer.ts';
import { systemPki } from '../../system/pki/openssl-pki.ts';
import type { VhostSpec } from '../../system/types.ts';
import type { PanelAnswer } from './protocol.ts';

export async function makePki(system: SystemConfig, adminP12Password?: string): Promise<PanelAnswer<'pki'>> {
  const pki = systemPki(system, system.pki.dir);
  const hadCa = await pathExists(join(system.pki.dir, 'ca.pem'));
  await pki.ensureCa();
  if (adminP12Password === undefined) return { caCreated: !hadCa };
  const cert = await pki.issueClientCert('admin');
  return { caCreated: !hadCa, p12: (await pki.toPkcs12(cert, adminP12Password)).toString('base64') };
}

export async function makeVhostMaterial(system: SystemConfig, specs: readonly VhostSpec[]): Promise<PanelAnswer<'vhost-material'>> {
  const pki = systemPki(system, system.pki.dir);
  const prepare = createVhostPreparer(systemRendererOptions(system, hostVhostLayout(system), { certs: { paths: (fqdn) => certPaths(system, fqdn) }, pki }));
  for (const spec of specs) await prepare(spec);
  return {};
}

export async function makeHostKey(dir: string): Promise<PanelAnswer<'host-key'>> {
  const key = await ensureHostKey(dir);
  // a key put back by hand or from a copy keeps whatever mode it came with: it is a secret, which
  // chisel's group (the directory's) reads
  await chmod(key.path, HOST_KEY_MODE);
  return key;
}
