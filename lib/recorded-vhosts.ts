// The vhosts the records call for once onboarding is done: the default server, the stack's three
// names and each site, each only when its certificate is there (nginx refuses a whole reload over
// one missing certificate file). A restore writes them; the panel's start refreshes them.
import { DEFAULT_VHOST, stackVhosts } from './onboarding/hostnames.ts';
import { siteVhost } from './sites/context.ts';
import type { Runtime } from './runtime.ts';
import type { VhostSpec } from './system/types.ts';

export type VhostRecords = Pick<Runtime, 'config' | 'store' | 'system'>;

/** Every one is served: enabled. None before onboarding is done. */
export async function servedVhosts({ config, store, system }: VhostRecords): Promise<VhostSpec[]> {
  const { domain, onboarding } = config.value;
  if (onboarding.status !== 'COMPLETED' || !domain) return [];
  const certified = (fqdn: string) => system.certs.has(fqdn);
  const specs: VhostSpec[] = [DEFAULT_VHOST];
  for (const spec of stackVhosts(domain)) if (await certified(spec.fqdn)) specs.push(spec);
  for (const site of store.sites.value) if (site.certIssued && (await certified(site.fqdn))) specs.push(siteVhost(site, domain));
  return specs;
}
