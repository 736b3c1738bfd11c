// What install checks before it changes anything: the OS, the architecture, the public address.
import { networkInterfaces } from 'node:os';
import ipaddr from 'ipaddr.js';

export class InstallError extends Error {
  constructor(message: string, readonly fix?: string) {
    super(message);
  }
}

/** KEY=value lines of os-release(5); values may be quoted. */
export function parseOsRelease(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (m) out[m[1]!] = m[2]!.replace(/^(["'])(.*)\1$/, '$2');
  }
  return out;
}

/** Debian 12 or later, Ubuntu 22.04 or later: the systems whose nginx, certbot and systemd we know. */
export function checkOs(release: Record<string, string>): string {
  const id = release.ID ?? '';
  const version = Number.parseFloat(release.VERSION_ID ?? '');
  const name = release.PRETTY_NAME ?? `${id} ${release.VERSION_ID ?? ''}`.trim();
  const supported = (id === 'debian' && version >= 12) || (id === 'ubuntu' && version >= 22.04);
  if (!supported) throw new InstallError(`unsupported system: ${name || 'unknown'}`, 'use Debian 12 or Ubuntu 22.04 or later');
  return name;
}

export function checkArch(arch: string): string {
  if (arch !== 'x64' && arch !== 'arm64') throw new InstallError(`unsupported architecture: ${arch}`, 'use an x86-64 or arm64 machine');
  return arch;
}

/**
 * The address the IP panel is reached at: `--ip` when given (any valid address: the operator
 * knows their network), else the first public IPv4 of a local interface. Never asks the internet.
 */
export function chooseIp(explicit: string | undefined, interfaces = networkInterfaces()): string {
  if (explicit !== undefined) {
    if (!ipaddr.isValid(explicit)) throw new InstallError(`--ip ${explicit} is not an IP address`);
    return ipaddr.parse(explicit).toString();
  }
  for (const list of Object.values(interfaces)) {
    for (const a of list ?? []) {
      if (a.family === 'IPv4' && !a.internal && ipaddr.parse(a.address).range() === 'unicast') return a.address;
    }
  }
  throw new InstallError('no public IPv4 address on any interface', 'pass the address clients use: --ip <address>');
}
