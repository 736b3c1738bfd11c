// Host certificates through certbot: webroot issuance, renewal with a deploy hook that reloads
// nginx, listing, and the panel's own systemd timer that renews automatically (renew-units.ts), all
// in the panel's ACME directories (config.acme), never Debian's /etc/letsencrypt.
import { X509Certificate } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../common/atomic-write.ts';
import type { SystemConfig } from '../config.ts';
import { daysLeft, hasValidCert } from './cert-validity.ts';
import { archiveReader } from './archive.ts';
import { certificateNames } from '../pki/self-signed.ts';
import { programFailure, run } from '../common/exec.ts';
import { assertFqdn } from '../common/names.ts';
import { certbotFailureSummary, parseCertbotCertificates } from './certbot-output.ts';
import { parseSystemdTimestamp } from '../systemd/systemd-output.ts';
import { SystemError, type CertPaths, type CertsAdapter, type DnsChallenge } from '../types.ts';
import { nginxArgs } from '../proxy/host.ts';
import type { RootActions } from '../root/root-actions.ts';
import { certPaths } from './live-paths.ts';

/**
 * certbot runs hooks through a shell, so words with shell syntax are single-quoted. Plain words
 * stay bare: certbot looks the hook's first word up as a file and would not find a quoted one.
 */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * certbot's deploy hook. On a box certbot runs as the panel's user (the panel's renewal service,
 * renew-units.ts, and the panel itself), and only the root helper can reload nginx: the hook asks
 * it. lib/install/acme-move.ts knows a lineage as the panel's by this hook.
 */
export function reloadNginxCommand(config: SystemConfig): string {
  const argv = config.rootHelper
    ? [config.rootHelper.call, 'nginx-reload']
    : config.nginx.reloadWith === 'systemctl'
    ? [config.binaries.systemctl, 'reload', config.units.proxy]
    : [config.binaries.nginx, ...nginxArgs(config), '-s', 'reload'];
  return argv.map(shellQuote).join(' ');
}

export function certbotDirArgs(config: SystemConfig): string[] {
  return ['--config-dir', config.acme.configDir, '--work-dir', config.acme.workDir, '--logs-dir', config.acme.logsDir];
}

export function certonlyArgs(config: SystemConfig, fqdn: string, email: string): string[] {
  return ['certonly', '--webroot', '-w', config.acme.webroot, '-d', fqdn, '--cert-name', fqdn, '--email', email,
    '--agree-tos', '--non-interactive', '--no-eff-email', '--keep-until-expiring', '--server', config.acme.server,
    // stored in the lineage's renewal config, so timer renewals reload nginx too
    '--deploy-hook', reloadNginxCommand(config), ...certbotDirArgs(config)];
}

/** certonly for the wildcard lineage: both names in one order, validated through the DNS plugin. */
export function wildcardCertonlyArgs(config: SystemConfig, domain: string, email: string, dns: DnsChallenge): string[] {
  return ['certonly', '--authenticator', dns.authenticator,
    ...(dns.credentialsOption ? [dns.credentialsOption, dns.credentialsPath] : []),
    ...(dns.propagationOption && dns.propagationSeconds !== null ? [dns.propagationOption, String(dns.propagationSeconds)] : []),
    // --expand: a lineage of the domain alone (a custom site at the bare domain) grows the wildcard name
    '-d', domain, '-d', `*.${domain}`, '--cert-name', domain, '--expand', '--email', email,
    '--agree-tos', '--non-interactive', '--no-eff-email', '--keep-until-expiring', '--server', config.acme.server,
    '--deploy-hook', reloadNginxCommand(config), ...certbotDirArgs(config)];
}

/**
 * A renewal the panel asks for: the panel makes the map and reloads after it, so certbot's hook
 * directory (the timer renewals' hook, DEPLOY_HOOK_NAME: a second process building the map outside
 * the panel's lock) is not run for it.
 */
export function renewArgs(config: SystemConfig, fqdn: string): string[] {
  return ['renew', '--cert-name', fqdn, '--force-renewal', '--no-random-sleep-on-renew', '--non-interactive', '--no-directory-hooks',
    '--deploy-hook', reloadNginxCommand(config), ...certbotDirArgs(config)];
}

/** The global deploy hook setupAutoRenew writes in the panel's configDir. */
export const DEPLOY_HOOK_NAME = 'relay-panel-reload-nginx';

/**
 * What the global deploy hook runs. Through the root helper where there is one (its reload makes the
 * per-name certificate map first); on a box without one (`--user root`), the panel's own
 * `nginx-reload` when the running panel named it (`panelReload`, lib/nginx-reload-command.ts), since
 * `systemctl reload nginx` alone would leave a renewed name's old certificate in the map until the
 * panel's next change; else reloadNginxCommand.
 */
export function deployHookCommand(config: SystemConfig, panelReload?: readonly string[]): string {
  return !config.rootHelper && panelReload ? panelReload.map(shellQuote).join(' ') : reloadNginxCommand(config);
}

export const deployHookScript = (command: string) => `#!/bin/sh\n# managed by relay-panel: renewed certificates take effect at once\nexec ${command}\n`;

export function deployHookPath(config: SystemConfig): string {
  return join(config.acme.configDir, 'renewal-hooks', 'deploy', DEPLOY_HOOK_NAME);
}

/** certbot's `--email`: one address, nothing an argument could be mistaken for. */
function assertEmail(email: unknown): void {
  if (typeof email !== 'string' || !/^[^\s@'"]+@[^\s@'"]+\.[^\s@'"]+$/.test(email)) throw new SystemError('Invalid email address');
}

export { certPaths };

/** Whether the certificate at `fullchain` names `*.<domain>` (a lineage of the bare domain alone does not). */
export async function coversWildcard(fullchain: string, domain: string): Promise<boolean> {
  const pem = await readFile(fullchain).catch(() => null);
  if (!pem) return false;
  return (new X509Certificate(pem).subjectAltName ?? '').split(', ').includes(`DNS:*.${domain}`);
}

/**
 * `renewalEnv`: what every certbot run carries (renewal-env.ts: route53's credentials for a renew too).
 * `panelReload`: the argv of the running panel's `nginx-reload` (deployHookCommand).
 */
export function createHostCerts(config: SystemConfig, root: RootActions, now: () => number, renewalEnv: Record<string, string> = {}, panelReload?: readonly string[]): CertsAdapter {
  const env = { ...process.env, ...(config.acme.caBundle ? { REQUESTS_CA_BUNDLE: config.acme.caBundle } : {}), ...renewalEnv };
  const certbot = (args: string[], extraEnv: Record<string, string> = {}) => run(config.binaries.certbot, args, { timeoutMs: config.timeouts.certbotMs, env: { ...env, ...extraEnv } });

  const paths = (fqdn: string): CertPaths => certPaths(config, fqdn);
  const hookScript = deployHookScript(deployHookCommand(config, panelReload));
  const has = (fqdn: string): Promise<boolean> => hasValidCert(config, paths(fqdn).fullchain, now());

  const readArchive = archiveReader(certificateNames);

  let changes = 0;
  return {
    paths,
    has,
    names: (lineage) => certificateNames(paths(lineage).fullchain),
    // the panel's user owns the configuration directory (certbot runs as it), so it reads the archive itself
    issuedSince: (since) => readArchive(join(config.acme.configDir, 'archive'), since),
    changes: () => changes,
    async issue(fqdn, email) {
      assertFqdn(fqdn);
      assertEmail(email);
      if (await has(fqdn)) return { issued: false, paths: paths(fqdn) };
      await mkdir(config.acme.webroot, { recursive: true });
      try {
        await certbot(certonlyArgs(config, fqdn, email));
      } catch (e) {
        throw programFailure(e, 'certbot', `certbot could not issue ${fqdn}`, certbotFailureSummary);
      }
      if (!(await has(fqdn))) throw new SystemError(`certbot finished but no valid certificate for ${fqdn} is in ${config.acme.configDir}`, 'certbot');
      changes++;
      return { issued: true, paths: paths(fqdn) };
    },
    async issueWildcard(domain, email, dns) {
      assertFqdn(domain);
      assertEmail(email);
      if ((await has(domain)) && (await coversWildcard(paths(domain).fullchain, domain))) return { issued: false, paths: paths(domain) };
      try {
        await certbot(wildcardCertonlyArgs(config, domain, email, dns), dns.credentialsEnv ? { [dns.credentialsEnv]: dns.credentialsPath } : {});
      } catch (e) {
        throw programFailure(e, 'certbot', `certbot could not issue the wildcard certificate of ${domain}`, certbotFailureSummary);
      }
      if (!(await has(domain))) throw new SystemError(`certbot finished but no valid certificate for ${domain} is in ${config.acme.configDir}`, 'certbot');
      changes++;
      return { issued: true, paths: paths(domain) };
    },
    async remove(name) {
      assertFqdn(name);
      try {
        await certbot(['delete', '--cert-name', name, '--non-interactive', ...certbotDirArgs(config)]);
      } catch (e) {
        throw programFailure(e, 'certbot', `certbot could not delete ${name}`, certbotFailureSummary);
      }
      changes++;
    },
    async list() {
      const { stdout } = await certbot(['certificates', ...certbotDirArgs(config)]);
      return parseCertbotCertificates(stdout).map((l) => ({
        domain: l.name,
        domains: l.domains,
        expiresAt: l.expiresAt,
        daysLeft: daysLeft(Date.parse(l.expiresAt), now()),
        paths: { fullchain: l.certificatePath || paths(l.name).fullchain, privkey: l.privateKeyPath || paths(l.name).privkey },
      }));
    },
    async renew(fqdn) {
      assertFqdn(fqdn);
      try {
        await certbot(renewArgs(config, fqdn));
      } catch (e) {
        throw programFailure(e, 'certbot', `certbot could not renew ${fqdn}`, certbotFailureSummary);
      }
      changes++;
    },
    async setupAutoRenew() {
      // a hook for every lineage of the panel's configDir, whatever its renewal configuration says
      await writeFileAtomic(deployHookPath(config), hookScript, 0o755);
      // the root helper runs `systemctl enable --now <config.acme.renewTimer>`: the panel's own timer
      await root.controlUnit('renew-timer', 'enable');
    },
    async keepDeployHook() {
      // a panel run from its sources knows no launcher to name: it leaves the hook a bundle wrote
      if (!panelReload) return false;
      const hook = deployHookPath(config);
      const text = await readFile(hook, 'utf8').catch(() => null);
      // only a hook onboarding wrote: none is made here, and the timer is not touched
      if (text === null || text === hookScript) return false;
      await writeFileAtomic(hook, hookScript, 0o755);
      return true;
    },
    async autoRenewStatus() {
      const active = await root.unitState('renew-timer');
      let props: Record<string, string> = {};
      try {
        props = await root.unitProperties('renew-timer', ['NextElapseUSecRealtime', 'LastTriggerUSec']);
      } catch {
        // no systemd: the timer's times are unknown
      }
      const at = (v: string | undefined) => (v ? parseSystemdTimestamp(v)?.toISOString() ?? null : null);
      return { active: active === 'active', nextRun: at(props.NextElapseUSecRealtime), lastRun: at(props.LastTriggerUSec) };
    },
  };
}
