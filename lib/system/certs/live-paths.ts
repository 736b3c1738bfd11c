// Where certbot keeps a name's current certificate (its `live` lineage), apart from the adapter
// that runs certbot, so nginx's own control (proxy/host.ts) can name it without importing the adapter.
import { join } from 'node:path';
import type { SystemConfig } from '../config.ts';
import { assertFqdn } from '../common/names.ts';
import type { CertPaths } from '../types.ts';

export function certPaths(config: Pick<SystemConfig, 'acme'>, fqdn: string): CertPaths {
  const live = join(config.acme.configDir, 'live', assertFqdn(fqdn));
  return { fullchain: join(live, 'fullchain.pem'), privkey: join(live, 'privkey.pem') };
}
