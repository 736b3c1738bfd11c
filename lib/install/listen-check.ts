// doctor's `ports` checks: the addresses that really listen on the panel's, the IP panel's and
// https's ports, read from the kernel's tables, against the address each is configured for. A
// connection to 127.0.0.1 succeeds for a listener on 0.0.0.0 and on 127.0.0.1 alike, so a probe
// cannot say which one nginx bound; the tables can.
import type { Config } from '../config.ts';
import { portOpen } from '../system/common/port-probe.ts';
import { readTcpListeners } from '../system/common/tcp-listeners.ts';
import type { SystemConfig } from '../system/config.ts';
import { canonicalHost, hostPort, type TcpListener } from '../system/common/proc-net.ts';

export interface ListenWant {
  /** what the operator calls it: panel, IP panel, https */
  what: string;
  host: string;
  port: number;
  /** the setting that names the address */
  setting: string;
  /** the fix when nothing listens on the port */
  down: string;
  /** the fix when it listens, but not on the configured address */
  elsewhere: string;
}

export interface PortFinding {
  ok: boolean;
  message: string;
  fix: string;
}

/** The addresses a configured host stands for: itself, or either loopback for `localhost`. */
function wantedHosts(host: string): string[] {
  if (host === 'localhost') return ['127.0.0.1', '[::1]'];
  return [canonicalHost(host) ?? host];
}

/** The finding for one port, from every listener the kernel lists. */
export function listenFinding(want: ListenWant, listeners: readonly TcpListener[]): PortFinding {
  const here = listeners.filter((l) => l.port === want.port);
  const configured = hostPort(want.host, want.port);
  if (here.length === 0) {
    return { ok: false, message: `${want.what} does not listen: nothing listens on port ${want.port} (${want.setting}: ${configured})`, fix: want.down };
  }
  const on = [...new Set(here.map((l) => `${l.host}:${l.port}`))].join(', ');
  const hosts = wantedHosts(want.host);
  if (here.some((l) => hosts.includes(l.host))) return { ok: true, message: `${want.what} listens on ${on}`, fix: want.elsewhere };
  return { ok: false, message: `${want.what} listens on ${on}, not on ${configured} as ${want.setting} says`, fix: want.elsewhere };
}

/** Where a wildcard is reached from this box. */
const PROBED: Record<string, string> = { '0.0.0.0': '127.0.0.1', '[::]': '[::1]' };

/** Without the kernel's tables (not Linux): whether a connection is accepted, and that this is all that is known. */
async function probeFinding(want: ListenWant, procDir: string): Promise<PortFinding> {
  const host = canonicalHost(want.host) ?? want.host;
  const at = PROBED[host] ?? host;
  const open = await portOpen(at.replace(/^\[(.*)\]$/, '$1'), want.port);
  return {
    ok: open,
    message: `${want.what} ${open ? 'accepts' : 'does not accept'} connections on ${at}:${want.port} (${procDir}/net/tcp and tcp6 unreadable: the addresses it listens on are unknown)`,
    fix: want.down,
  };
}

/**
 * The ports doctor looks at: the panel's own, the IP panel's and, once onboarding completed, https.
 * A listener elsewhere than nginx.listenAddress is nginx with vhosts written for another address
 * (install was given a --system-config that doctor was not), or another program; install cannot
 * move nginx to another address (a reload cannot bind a port nginx holds on another one), so the
 * fix names what to look at and the configuration to use, not a rewrite.
 */
export function listenWants(s: SystemConfig, config: Config, completed: boolean): ListenWant[] {
  const holder = (port: number) => `ss -ltnp 'sport = :${port}' names the program that holds the port`;
  const nginxDown = `systemctl reload ${s.units.proxy}; check ${s.nginx.errorLog}`;
  const address = s.nginx.listenAddress;
  const nginxElsewhere = (port: number) => `${holder(port)}; if it is nginx, its vhosts were written for another nginx.listenAddress than ${address}: give doctor the --system-config install was given`;
  const panel = s.units.panel;
  const wants: ListenWant[] = [
    { what: 'panel', host: config.listen.host, port: config.listen.port, setting: 'listen.host in config.json', down: `systemctl restart ${panel}`,
      elsewhere: `${holder(config.listen.port)}; install makes ${panel}.socket listen on ${hostPort('127.0.0.1', s.ports.panel)} for the panel: set listen.host in config.json to the same and stop any other program on the port, then: systemctl restart ${panel}.socket ${panel}` },
    { what: 'IP panel', host: address, port: s.ports.ipPanel, setting: 'nginx.listenAddress', down: nginxDown, elsewhere: nginxElsewhere(s.ports.ipPanel) },
  ];
  if (completed) wants.push({ what: 'https', host: address, port: s.ports.https, setting: 'nginx.listenAddress', down: nginxDown, elsewhere: nginxElsewhere(s.ports.https) });
  return wants;
}

/** One finding per port doctor looks at; `procDir` is /proc but in tests. */
export async function portFindings(s: SystemConfig, config: Config, completed: boolean, procDir = '/proc'): Promise<PortFinding[]> {
  const listeners = await readTcpListeners(procDir);
  return Promise.all(listenWants(s, config, completed).map((w) => (listeners ? listenFinding(w, listeners) : probeFinding(w, procDir))));
}
