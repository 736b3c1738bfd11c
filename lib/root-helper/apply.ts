// The helper's `vhosts` and `vhosts-refresh` actions: render the checked changes with the panel's own templates from the
// helper's configuration, write them, `nginx -t`, reload, and put everything back on failure (the
// same VhostStore the sandbox and a root-run panel use).
import { certPaths } from '../system/host/certs.ts';
import { hostNginxControl, hostVhostDirs, hostVhostLayout } from '../system/host/nginx.ts';
import { templateContext } from '../system/nginx/renderer.ts';
import { renderVhost } from '../system/nginx/templates.ts';
import { VhostStore } from '../system/nginx/vhost-store.ts';
import { pkiPaths } from '../system/pki/openssl-pki.ts';
import type { SystemConfig } from '../system/config.ts';
import type { PublicLocations, VhostChange, VhostSpec } from '../system/types.ts';

export function helperVhostStore(config: SystemConfig, publicLocations: PublicLocations): VhostStore {
  const pki = pkiPaths(config.pki.dir);
  const context = templateContext(
    { ...hostVhostLayout(config), ports: config.ports, trafficPort: config.nginx.trafficPort, publicLocations, certs: { paths: (fqdn) => certPaths(config, fqdn) } },
    { caPath: pki.caCert, crlPath: pki.crl },
  );
  return new VhostStore({ ...hostVhostDirs(config), render: async (spec) => renderVhost(spec, context), ...hostNginxControl(config) });
}

/** Applies checked changes; throws a SystemError (nginx's words) with nothing left changed. */
export async function applyVhostChanges(config: SystemConfig, publicLocations: PublicLocations, changes: VhostChange[]): Promise<void> {
  await helperVhostStore(config, publicLocations).apply(changes);
}

/** Rewrites the given vhosts whose text the current templates would change; answers their names. */
export function refreshVhostSpecs(config: SystemConfig, publicLocations: PublicLocations, specs: VhostSpec[]): Promise<string[]> {
  return helperVhostStore(config, publicLocations).refresh(specs);
}
