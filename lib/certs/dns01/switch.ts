// Changing the certificate mode, all or nothing: each side effect is a step with its undo
// (lib/steps.ts), and the configuration is saved last, so a failure at any step leaves the box as
// it was: no package the switch installed, no credentials file it wrote, no certificate it issued,
// no vhost naming a certificate that is not there.
//   to wildcard: plugin package -> credentials file -> wildcard certificate -> vhosts -> save
//   to per-name: each covered name's own certificate (HTTP-01) -> vhosts -> save, then the
//                wildcard lineage and its credentials go
import type { Config } from '../../config.ts';
import { CERTIFICATE_FAILED, NGINX_FAILED, STATE_FAILED, type Step } from '../../steps.ts';
import type { DnsChallenge, System } from '../../system/types.ts';
import { credentialsText } from './credentials-text.ts';
import { dnsCredentialsDir, dnsCredentialsPath, putCredentialsFile } from './credentials-file.ts';
import { PER_NAME, type CertificateModeRecord, type WildcardMode } from './mode.ts';
import { credentialKeys, PROVIDERS, type DnsProvider } from './providers.ts';
import { namesLeavingWildcard, type ServedRecords } from './served-specs.ts';
import { sharedServerStep } from './shared-server.ts';

const PACKAGE_FAILED = 'DNS plugin installation failed';
const CREDENTIALS_FAILED = 'Credentials file failed';

export interface SwitchDeps {
  system: Pick<System, 'certs' | 'proxy' | 'packages'>;
  dataDir: string;
  records: () => ServedRecords;
  config: () => Config;
  save: (mode: CertificateModeRecord) => Promise<void>;
}

export interface WildcardRequest {
  provider: DnsProvider;
  credentials: unknown;
  propagationSeconds?: number;
}

function dnsChallenge(dataDir: string, provider: DnsProvider, propagationSeconds: number | null): DnsChallenge {
  const spec = PROVIDERS[provider];
  return {
    authenticator: spec.authenticator,
    credentialsPath: dnsCredentialsPath(dataDir, provider),
    credentialsOption: spec.credentialsOption,
    ...(spec.credentialsEnv ? { credentialsEnv: spec.credentialsEnv } : {}),
    propagationOption: spec.propagationOption,
    propagationSeconds,
  };
}

/** The steps to wildcard mode; `domain` and `email` checked by the caller. */
export function toWildcardSteps(deps: SwitchDeps, request: WildcardRequest, domain: string, email: string): Step[] {
  const { certs, proxy, packages } = deps.system;
  const spec = PROVIDERS[request.provider];
  const mode: WildcardMode = {
    mode: 'wildcard',
    provider: request.provider,
    lineage: domain,
    propagationSeconds: spec.propagationOption ? (request.propagationSeconds ?? null) : null,
    keysSet: credentialKeys(request.provider).filter((k) => (request.credentials as Record<string, unknown>)[k] !== undefined),
  };
  const before = deps.config();
  const after: Config = { ...before, certificateMode: mode };
  // rendered before anything changes: a credential of the wrong shape stops the switch here
  const text = credentialsText(request.provider, request.credentials);
  const path = dnsCredentialsPath(deps.dataDir, request.provider);
  let installedHere = false;
  let undoCredentials: (() => Promise<void>) | null = null;
  let lineageBefore = true;
  return [
    {
      failure: PACKAGE_FAILED,
      async run() {
        if (await packages.installed(spec.package)) return;
        await packages.install(spec.package);
        installedHere = true;
      },
      async undo() {
        if (installedHere) await packages.remove(spec.package);
      },
    },
    {
      failure: CREDENTIALS_FAILED,
      async run() {
        undoCredentials = await putCredentialsFile(path, dnsCredentialsDir(deps.dataDir), text);
      },
      undo: async () => undoCredentials?.(),
    },
    {
      failure: CERTIFICATE_FAILED,
      async run() {
        // a lineage of the domain may be there already: an earlier wildcard, or a custom site at the bare domain
        lineageBefore = await certs.has(domain);
        await certs.issueWildcard(domain, email, dnsChallenge(deps.dataDir, request.provider, mode.propagationSeconds));
      },
      async undo() {
        // only a lineage this switch made goes; one that was there stays (it may serve a site)
        if (!lineageBefore) await certs.remove(domain);
      },
    },
    { failure: NGINX_FAILED, ...sharedServerStep(proxy, deps.records, before, after) },
    { failure: STATE_FAILED, run: () => deps.save(mode) },
  ];
}

/** The steps back to per-name mode: every covered name gets its own certificate before any vhost names it. */
export function toPerNameSteps(deps: SwitchDeps, email: string): Step[] {
  const { certs, proxy } = deps.system;
  const before = deps.config();
  const after: Config = { ...before, certificateMode: PER_NAME };
  return [
    {
      failure: CERTIFICATE_FAILED,
      async run() {
        // one at a time: certbot holds a lock per configuration directory
        for (const fqdn of namesLeavingWildcard(deps.records(), before)) await certs.issue(fqdn, email);
      },
    },
    { failure: NGINX_FAILED, ...sharedServerStep(proxy, deps.records, before, after) },
    { failure: STATE_FAILED, run: () => deps.save(PER_NAME) },
  ];
}
