import { isAbsolute, relative } from 'node:path';
import type { Config } from '../config.ts';
import { sandboxPaths } from '../system/sandbox/paths.ts';

/** The archive's first entry, and the configuration file's name in it. */
export const MANIFEST_ENTRY = 'manifest.json';
export const CONFIG_ENTRY = 'config.json';

/** The directories a backup holds, each under its name in the archive. */
export const SECTION_NAMES = ['data', 'pki', 'portal', 'tunnel-server', 'sites', 'letsencrypt', 'ip-panel-cert'] as const;
export type SectionName = (typeof SECTION_NAMES)[number];

export interface Section {
  name: SectionName;
  dir: string;
}

export const inside = (dir: string, parent: string) => {
  const rel = relative(parent, dir);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

/** Where this configuration keeps site files (`<root>/<site id>`): the sandbox keeps them in its data dir. */
export function sitesRootOf(config: Config): string {
  return config.system.driver === 'sandbox' ? sandboxPaths(config.dataDir).sites : config.system.sites.root;
}

/**
 * Where each section lives for this configuration: the state (with the audit log), the client CA
 * and CRL, Authelia's files, chisel's credential and host key, the site files, the Let's Encrypt certificates
 * and the IP panel's certificate. A directory inside the data dir (the sandbox plays the whole
 * host there) travels with the data section.
 */
export function sectionsOf(config: Config): Section[] {
  const { system } = config;
  const all: Section[] = [
    { name: 'data', dir: config.dataDir },
    { name: 'pki', dir: system.pki.dir },
    { name: 'portal', dir: system.authelia.dir },
    { name: 'tunnel-server', dir: system.chisel.dir },
    { name: 'sites', dir: sitesRootOf(config) },
    { name: 'letsencrypt', dir: system.acme.configDir },
    { name: 'ip-panel-cert', dir: system.nginx.selfSignedDir },
  ];
  if (system.driver === 'sandbox') return all.slice(0, 1);
  return all.filter((section) => section.name === 'data' || !inside(section.dir, config.dataDir));
}

/**
 * What a backup leaves out because a restore renders it from the records: the sandbox's vhosts
 * (the host's live in nginx's directories, which are not backed up).
 */
export function renderedPaths(config: Config): string[] {
  if (config.system.driver !== 'sandbox') return [];
  const paths = sandboxPaths(config.dataDir);
  return [paths.sitesAvailable, paths.sitesEnabled, paths.routes];
}

