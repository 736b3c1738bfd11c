// The helper's `vhosts` and `vhosts-refresh` actions: render the checked changes with the panel's own templates from the
// helper's configuration, write them, `nginx -t`, reload, and put everything back on failure (the
// same VhostStore the sandbox and a root-run panel use). The helper's vhosts name root's copies of
// the TLS material (tls-copies.ts), made before anything is written; a panel run as root without
// the helper and the sandbox name the files themselves (renderer.ts). So does the installer's
// `--user root` box (runAs null): its panel is root and writes its own vhosts naming its own files,
// so the installer's vhosts name them too, or every start of the panel would flip them back.
import { readdir } from 'node:fs/promises';
import { certPaths } from '../system/certs/host.ts';
import { hostNginxControl, hostVhostDirs, hostVhostLayout } from '../system/proxy/host.ts';
import { pkiPaths } from '../system/pki/openssl-pki.ts';
import { templateContext } from '../system/proxy/renderer.ts';
import { renderVhost, vhostName, type TemplateContext } from '../system/proxy/templates.ts';
import { VhostStore } from '../system/proxy/vhost-store.ts';
import { httpContextSetInMainConf } from '../system/proxy/main-conf-directives.ts';
import type { SystemConfig } from '../system/config.ts';
import type { PublicLocations, VhostChange, VhostSpec } from '../system/types.ts';
import { pruneTlsCopies, stageEntries } from './tls-copies.ts';
import { copiedTlsContext, entriesOfSpec } from './tls-entries.ts';
import { routeEntriesOf, writtenVhostEntries } from './vhost-entries.ts';
import { usesTlsCopies } from '../system/proxy/tls-copy-paths.ts';
import { tlsSourceOwners } from './tls-owner.ts';


/**
 * The template context of the helper's vhosts: the configured layout, and tlsDir's copies for every
 * certificate, key, CA and CRL; with runAs null the files themselves, as the root panel renders them.
 */
export function helperTemplateContext(config: SystemConfig, publicLocations: PublicLocations): TemplateContext {
  const layout = { ...hostVhostLayout(config), ports: config.ports, trafficPort: config.nginx.trafficPort, publicLocations };
  if (!usesTlsCopies(config)) {
    const pki = pkiPaths(config.pki.dir);
    return templateContext({ ...layout, certs: { paths: (fqdn) => certPaths(config, fqdn) } }, { caPath: pki.caCert, crlPath: pki.crl });
  }
  const copies = copiedTlsContext(config.nginx.tlsDir);
  return { ...templateContext({ ...layout, certs: { paths: (fqdn) => copies.certFor(fqdn) } }, copies.mtls), ...copies };
}

export function helperVhostStore(config: SystemConfig, publicLocations: PublicLocations): VhostStore {
  const context = helperTemplateContext(config, publicLocations);
  // the default server's file leaves out the http context's settings nginx.conf already gives
  const render = async (spec: VhostSpec) =>
    renderVhost(spec, spec.kind === 'default' ? { ...context, setInMainConf: await httpContextSetInMainConf(config.nginx.conf) } : context);
  return new VhostStore({ ...hostVhostDirs(config), render, ...hostNginxControl(config) });
}

/**
 * Applies checked changes; throws a SystemError (nginx's words, or `Refused: <path> refused: <reason>`
 * for TLS material root will not copy) with nothing left changed. The installer calls it too.
 */
export async function applyVhostChanges(config: SystemConfig, publicLocations: PublicLocations, changes: VhostChange[]): Promise<void> {
  if (!usesTlsCopies(config)) return helperVhostStore(config, publicLocations).apply(changes);
  // a put loads what its checked spec names (a wildcard lineage too); an enable what its file names
  const entries: string[] = [];
  for (const c of changes) {
    if (c.op === 'put') entries.push(...entriesOfSpec(c.spec));
    else if (c.op === 'enable') entries.push(...(await writtenVhostEntries(config, c.name)));
  }
  entries.push(...(await routeEntriesOf(config, changes)));
  await stageEntries(config, entries, await tlsSourceOwners(config));
  let failure: unknown = null;
  try {
    await helperVhostStore(config, publicLocations).apply(changes);
  } catch (e) {
    failure = e;
  }
  // a removed vhost's copies go; so do those staged for a put nginx refused (its vhost is gone again)
  await pruneTlsCopies(config).catch((e) => {
    if (failure === null) throw e;
  });
  if (failure !== null) throw failure;
}

/**
 * Rewrites the given vhosts whose text the current templates would change; answers their names.
 * The copies of those already written are staged first (an upgrade's first refresh moves every
 * vhost from the panel's files to the copies).
 */
export async function refreshVhostSpecs(config: SystemConfig, publicLocations: PublicLocations, specs: VhostSpec[]): Promise<string[]> {
  if (!usesTlsCopies(config)) return helperVhostStore(config, publicLocations).refresh(specs);
  const written = new Set(await readdir(config.nginx.sitesAvailable).catch(() => [] as string[]));
  const entries = specs.filter((spec) => written.has(vhostName(spec))).flatMap(entriesOfSpec);
  entries.push(...(await routeEntriesOf(config, specs.filter((spec) => written.has(vhostName(spec))).map((spec) => ({ op: 'put', spec, enabled: true })))));
  await stageEntries(config, entries, await tlsSourceOwners(config));
  const rewritten = await helperVhostStore(config, publicLocations).refresh(specs);
  // a vhost moved to another lineage (a wildcard switch, and back) leaves its old entry to no one
  if (rewritten.length > 0) await pruneTlsCopies(config);
  return rewritten;
}
