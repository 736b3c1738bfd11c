import { randomUUID } from 'node:crypto';
import { isoNow } from '../clock.ts';
import { badRequest, validationFailed } from '../errors.ts';
import type { TunnelRecord } from '../state/schemas.ts';
import { isFqdn } from '../system/common/names.ts';
import { runStepsOrFail } from '../steps.ts';
import { ensureCertificate } from '../certs/dns01/lineage.ts';
import { appVhost } from '../host-state/vhost-specs.ts';
import { putVhost, type TunnelContext } from './context.ts';
import { siteHolds, tunnelHolds } from './names-in-use.ts';
import { checkPortFree } from './port-rules.ts';
import { RESERVED_SUBDOMAINS, type TunnelCreate } from './schema.ts';
import { CERTIFICATE_FAILED, NGINX_FAILED, STATE_FAILED, tunnelServerStep } from './steps.ts';

/**
 * The spec's 400 rules, checked and claimed in one synchronous run: no other create can slip in
 * between the check and the claim. Returns the release of the claim.
 */
function claim(ctx: TunnelContext, input: TunnelCreate): { fqdn: string; email: string; release: () => void } {
  const { domain, email } = ctx.config.value;
  if (!domain || !email) throw badRequest('Domain and email must be configured before creating tunnels');
  const { subdomain, port } = input;
  if (RESERVED_SUBDOMAINS.has(subdomain)) throw badRequest(`Subdomain '${subdomain}' is reserved`);
  const fqdn = `${subdomain}.${domain}`;
  // the subdomain and the domain are valid apart, so only the length can make the whole invalid
  if (!isFqdn(fqdn)) throw validationFailed([{ path: 'subdomain', message: `${fqdn} is not a valid domain name: longer than 253 characters` }]);
  if (tunnelHolds(ctx, subdomain, fqdn) || siteHolds(ctx, fqdn)) throw badRequest(`Subdomain '${subdomain}' is already in use`);
  checkPortFree(ctx, port);
  return { fqdn, email, release: ctx.reservations.claim(subdomain, port) };
}

/**
 * Certificate, vhost, tunnel server, record, in that order; a failure undoes the completed steps
 * except the certificate, which is kept (certificates cannot be revoked through the adapter, and a
 * retry reuses it instead of spending the ACME rate limit).
 */
export async function createTunnel(ctx: TunnelContext, input: TunnelCreate): Promise<TunnelRecord> {
  const { fqdn, email, release } = claim(ctx, input);
  const tunnel: TunnelRecord = {
    id: randomUUID(),
    subdomain: input.subdomain,
    fqdn,
    port: input.port,
    description: input.description,
    enabled: true,
    createdAt: isoNow(ctx.clock),
  };
  const { proxy, certs } = ctx.system;
  try {
    await runStepsOrFail('Failed to create tunnel', [
      // none to issue when the wildcard certificate covers the name
      { failure: CERTIFICATE_FAILED, run: () => ensureCertificate(certs, ctx.config.value, tunnel.fqdn, email) },
      {
        failure: NGINX_FAILED,
        run: () => proxy.apply([putVhost(tunnel, true, ctx.config.value)]),
        undo: () => proxy.apply([{ op: 'remove', name: proxy.vhostName(appVhost(tunnel)) }]),
      },
      tunnelServerStep(ctx, tunnel.id, { port: tunnel.port, enabled: true }),
      { failure: STATE_FAILED, run: () => ctx.store.tunnels.edit((tunnels) => tunnels.put(tunnel)) },
    ]);
  } finally {
    ctx.allowedPorts.clearPending(tunnel.id);
    release();
  }
  return tunnel;
}
