// The helper's one action: check a request, render its vhosts with the panel's own templates from
// the helper's configuration, write them, `nginx -t`, reload, and put everything back on failure
// (the same VhostStore the sandbox and a root-run panel use).
import { certPaths } from '../system/host/certs.ts';
import { hostNginxControl, hostVhostDirs, hostVhostLayout } from '../system/host/nginx.ts';
import { templateContext } from '../system/nginx/renderer.ts';
import { renderVhost } from '../system/nginx/templates.ts';
import { parseVhostRequest } from '../system/nginx/vhost-request.ts';
import { VhostStore } from '../system/nginx/vhost-store.ts';
import { pkiPaths } from '../system/pki/openssl-pki.ts';
import type { SystemConfig } from '../system/config.ts';
import type { PublicLocations } from '../system/types.ts';

export function helperVhostStore(config: SystemConfig, publicLocations: PublicLocations): VhostStore {
  const pki = pkiPaths(config.pki.dir);
  const context = templateContext(
    { ...hostVhostLayout(config), ports: config.ports, publicLocations, certs: { paths: (fqdn) => certPaths(config, fqdn) } },
    { caPath: pki.caCert, crlPath: pki.crl },
  );
  return new VhostStore({ ...hostVhostDirs(config), render: async (spec) => renderVhost(spec, context), ...hostNginxControl(config) });
}

/** Applies a request document; throws a SystemError (refusal or nginx's words) with nothing left changed. */
export async function applyVhostRequest(config: SystemConfig, publicLocations: PublicLocations, request: string): Promise<void> {
  const changes = parseVhostRequest(request, config.sites.root);
  await helperVhostStore(config, publicLocations).apply(changes);
}
