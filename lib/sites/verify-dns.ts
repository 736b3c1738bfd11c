import { AppError, badRequest, errorMessage } from '../errors.ts';
import { STATE_FAILED } from '../steps.ts';
import { ensureCertificate } from '../certs/dns01/lineage.ts';
import { siteVhost } from '../host-state/vhost-specs.ts';
import { findSite, putSiteVhost, SITE_NOT_FOUND, type SiteContext } from './context.ts';

export type DnsVerification =
  | { ok: true; message: string }
  | { ok: false; fqdn: string; expectedIp: string; resolvedIps: string[]; message: string };

async function resolve(ctx: SiteContext, fqdn: string): Promise<{ ips: string[]; problem?: string }> {
  try {
    return { ips: await ctx.system.dns.resolve4(fqdn) };
  } catch (error) {
    return { ips: [], problem: errorMessage(error) };
  }
}

/**
 * A custom site goes live once its name resolves to the host: certificate, vhost, then the record
 * says so. Until then the answer (200, ok false) tells what the name resolves to.
 */
export function verifySiteDns(ctx: SiteContext, id: string): Promise<DnsVerification> {
  return ctx.locks.run(id, async () => {
    const site = findSite(ctx, id);
    if (!site) throw new AppError(404, SITE_NOT_FOUND);
    if (site.type !== 'custom') throw badRequest('DNS verification is only needed for custom domains');
    if (site.dnsVerified && site.certIssued) return { ok: true, message: 'DNS already verified and certificate issued' };

    const { ip: expectedIp, domain, email } = ctx.config.value;
    const { ips, problem } = await resolve(ctx, site.fqdn);
    if (!ips.includes(expectedIp)) {
      const message = problem
        ? `DNS lookup of ${site.fqdn} failed (${problem}). Check that an A record points ${site.fqdn} to ${expectedIp}.`
        : ips.length
          ? `${site.fqdn} resolves to ${ips.join(', ')}, not to this server (${expectedIp}). Update its A record.`
          : `${site.fqdn} does not resolve yet. Add an A record pointing ${site.fqdn} to ${expectedIp}.`;
      return { ok: false, fqdn: site.fqdn, expectedIp, resolvedIps: ips, message };
    }

    try {
      await ensureCertificate(ctx.system.certs, ctx.config.value, site.fqdn, email ?? '');
    } catch (error) {
      throw new AppError(500, 'DNS verified but certificate issuance failed', errorMessage(error));
    }
    const live = { ...site, dnsVerified: true, certIssued: true };
    const { proxy } = ctx.system;
    try {
      await proxy.apply([putSiteVhost(live, domain, ctx.config.value)]);
    } catch (error) {
      throw new AppError(500, 'Certificate issued but nginx configuration failed', errorMessage(error));
    }
    try {
      await ctx.store.sites.edit((draft) => {
        if (!draft.has(id)) throw new Error('the site record disappeared');
        draft.put(live);
      });
    } catch (error) {
      await proxy.apply([{ op: 'remove', name: proxy.vhostName(siteVhost(live, domain)) }]).catch(() => undefined);
      throw new AppError(500, 'Certificate issued but nginx configuration failed', `${STATE_FAILED}: ${errorMessage(error)}`);
    }
    return { ok: true, message: 'DNS verified, certificate issued, and the site is now live.' };
  });
}
