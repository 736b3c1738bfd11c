import { join } from 'node:path';

/** Where the sandbox plays the host: everything under `<dataDir>/system`. */
export function sandboxPaths(dataDir: string): SandboxPaths {
  // asked for by each sandbox adapter of a system, all with the same directory
  if (last?.dataDir !== dataDir) last = { dataDir, paths: Object.freeze(layout(dataDir)) };
  return last.paths;
}

export type SandboxPaths = Readonly<ReturnType<typeof layout>>;
let last: { dataDir: string; paths: SandboxPaths } | undefined;

function layout(dataDir: string) {
  const root = join(dataDir, 'system');
  return {
    root,
    sitesAvailable: join(root, 'nginx', 'sites-available'),
    sitesEnabled: join(root, 'nginx', 'sites-enabled'),
    routes: join(root, 'nginx', 'relay-routes'),
    sni: join(root, 'nginx', 'relay-sni'),
    nginxHelp: join(root, 'nginx', 'help'),
    selfSigned: join(root, 'nginx', 'ip-panel-cert'),
    acmeWebroot: join(root, 'acme-webroot'),
    certsLive: join(root, 'certs', 'live'),
    /** each version signed, as certbot's archive keeps them (what the limits read of renewals) */
    certsArchive: join(root, 'certs', 'archive'),
    localCa: join(root, 'certs', 'local-ca'),
    certsState: join(root, 'certs', 'auto-renew.json'),
    chisel: join(root, 'chisel'),
    authelia: join(root, 'authelia'),
    pki: join(root, 'pki'),
    sites: join(root, 'sites'),
  };
}
