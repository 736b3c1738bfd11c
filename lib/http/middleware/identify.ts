import { AGENT_PREFIX, DEVELOPMENT_ADMIN, MTLS_REQUIRED, commonNameOf, serialFromHeader, type Identity } from '../../auth/identity.ts';
import type { Runtime } from '../../runtime.ts';
import { AppError } from '../../errors.ts';
import type { AnyRoute } from '../route.ts';
import type { Middleware } from '../state.ts';

const NO_CAPABILITIES: ReadonlySet<string> = new Set();

/**
 * The second check behind the proxy, which verified the certificate and set X-SSL-Client-*.
 * Those headers are trusted only because the listener is loopback-only and nginx overwrites them.
 */
export function identify(route: AnyRoute, services: Runtime): Middleware | undefined {
  if (route.access.public) return undefined;
  return (request, state) => {
    state.identity = services.mode === 'development' ? DEVELOPMENT_ADMIN : identityFromHeaders(request.headers, services);
    return undefined;
  };
}

export function identityFromHeaders(headers: Headers, services: Runtime): Identity {
  if (headers.get('x-ssl-client-verify') !== 'SUCCESS') throw new AppError(403, MTLS_REQUIRED);
  const serial = serialFromHeader(headers.get('x-ssl-client-serial'));
  if (serial && services.identities.isRevoked(serial)) throw new AppError(403, 'Certificate has been revoked');
  const commonName = commonNameOf(headers.get('x-ssl-client-dn') ?? '');
  if (!commonName) throw new AppError(403, MTLS_REQUIRED);
  if (!commonName.startsWith(AGENT_PREFIX)) {
    services.adminCert.observe(serial);
    return { role: 'admin', label: null, commonName, serial };
  }
  const label = commonName.slice(AGENT_PREFIX.length);
  const { agent, superseded } = services.identities.agentPresenting(label, serial);
  return {
    role: 'agent',
    label,
    commonName,
    serial,
    capabilities: agent?.capabilitySet ?? NO_CAPABILITIES,
    allowedSites: agent?.allowedSites ?? [],
    superseded,
  };
}
