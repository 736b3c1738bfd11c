// Self-signed certificate and key pairs made once per suite with openssl, by name and common name.
import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createServerCert } from '../../lib/system/pki/self-signed.ts';
import type { CertPaths } from '../../lib/system/types.ts';

export async function certPairs<K extends string>(dir: string, commonNames: Record<K, string>): Promise<Record<K, CertPaths>> {
  const pairs = {} as Record<K, CertPaths>;
  for (const [name, cn] of Object.entries(commonNames) as Array<[K, string]>) {
    pairs[name] = { fullchain: join(dir, `${name}.pem`), privkey: join(dir, `${name}.key`) };
    await createServerCert({ openssl: '/usr/bin/openssl', timeoutMs: 20_000, paths: pairs[name], commonName: cn, subjectAltNames: [`DNS:${cn}`], days: 2 });
  }
  return pairs;
}

/** A pair copied as a lineage's live files (`fullchain.pem`, `privkey.pem`) into `liveDir`, made if need be. */
export async function installLivePair(liveDir: string, pair: CertPaths): Promise<void> {
  await mkdir(liveDir, { recursive: true });
  await copyFile(pair.fullchain, join(liveDir, 'fullchain.pem'));
  await copyFile(pair.privkey, join(liveDir, 'privkey.pem'));
}
