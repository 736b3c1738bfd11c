// systemd unit files for the programs the panel installs, and the sandbox every unprivileged
// service of the box runs in (the panel, chisel, Authelia, certbot's renewals).

export interface UnitOptions {
  description: string;
  execStart: string;
  hardening: string[];
  /** a socket unit holds the listening socket across restarts; the service needs it and starts after it */
  socket?: string;
  /** null: started by its socket only, never at boot by itself */
  wantedBy?: string | null;
  restart?: 'always' | 'on-failure';
}

export function renderUnit(o: UnitOptions): string {
  const socket = o.socket ? `Requires=${o.socket}\nAfter=${o.socket}\n` : '';
  const wantedBy = o.wantedBy === undefined ? 'multi-user.target' : o.wantedBy;
  return `# managed by relay-panel
[Unit]
Description=${o.description}
After=network-online.target
Wants=network-online.target
${socket}
[Service]
ExecStart=${o.execStart}
Restart=${o.restart ?? 'always'}
RestartSec=2
${o.hardening.join('\n')}${o.hardening.length ? '\n' : ''}${wantedBy ? `\n[Install]\nWantedBy=${wantedBy}\n` : ''}`;
}

export interface SandboxOptions {
  /** the only paths it may write (`-`: a path that does not exist yet does not stop the start) */
  writable: string[];
  /**
   * no memory both writable and executable: right for Go programs (chisel, Authelia); node's JIT
   * needs it (V8 aborts at its first compile), and --jitless makes bcrypt 10x slower
   */
  memoryDenyWriteExecute: boolean;
  /** default 0077: files private to its user; a service that shares files with its group says so */
  umask?: '0077' | '0007';
}

/** `-`: a directory that does not exist yet must not stop the service from starting. */
export function readWritePaths(writable: string[]): string[] {
  return writable.length ? [`ReadWritePaths=${writable.map((d) => `-${d}`).join(' ')}`] : [];
}

/**
 * What a service that needs no privilege gets: no way to gain one (no setuid, no capabilities),
 * the system calls of an ordinary service, Internet and local sockets only, a read-only system
 * with its own directories writable, no home directories, devices, kernel knobs or other users'
 * processes, and files private to its user by default.
 */
export function unprivilegedSandbox(o: SandboxOptions): string[] {
  return [
    'NoNewPrivileges=yes',
    'CapabilityBoundingSet=',
    'AmbientCapabilities=',
    'SystemCallFilter=@system-service',
    'SystemCallErrorNumber=EPERM',
    'SystemCallArchitectures=native',
    'RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6',
    'ProtectSystem=strict',
    ...readWritePaths(o.writable),
    'ProtectHome=yes',
    'PrivateTmp=yes',
    'PrivateDevices=yes',
    'ProtectKernelTunables=yes',
    'ProtectKernelModules=yes',
    'ProtectKernelLogs=yes',
    'ProtectControlGroups=yes',
    'ProtectClock=yes',
    'ProtectHostname=yes',
    'ProtectProc=invisible',
    'RestrictNamespaces=yes',
    'RestrictRealtime=yes',
    'RestrictSUIDSGID=yes',
    'LockPersonality=yes',
    'RemoveIPC=yes',
    ...(o.memoryDenyWriteExecute ? ['MemoryDenyWriteExecute=yes'] : []),
    `UMask=${o.umask ?? '0077'}`,
  ];
}

/** `User=`/`Group=` lines when the service runs as a user of its own (the user's group has its name). */
function runAs(user: string | null | undefined): string[] {
  return user ? [`User=${user}`, `Group=${user}`] : [];
}

/** A service run as root (no `runAs`, the sandbox driver's tests) keeps the lighter sandbox it had: the locks above assume a user. */
function sandboxFor(user: string | null | undefined, o: SandboxOptions, asRoot: string[]): string[] {
  return user ? unprivilegedSandbox(o) : ['NoNewPrivileges=true', ...asRoot];
}

export interface ChiselUnitOptions {
  binary: string;
  port: number;
  authfile: string;
  keyfile: string;
  /** chisel's own user (config.systemd.tunnelUser, else runAs: serviceUser); null: root */
  user?: string | null;
}

export function renderChiselUnit(o: ChiselUnitOptions): string {
  // --authfile grants each client only its reverse ports; chisel reloads it on change (restarted
  // only to end a revoked port's live session: revoked-sessions.ts).
  // --keyfile: the same SSH host key at every start, so clients can pin its fingerprint
  return renderUnit({
    description: 'chisel tunnel server (relay-panel)',
    execStart: `${o.binary} server --reverse --host 127.0.0.1 --port ${o.port} --authfile ${o.authfile} --keyfile ${o.keyfile}`,
    // chisel only reads (its authfile and key, 0640 through its group); it listens on loopback ports
    hardening: [...runAs(o.user), ...sandboxFor(o.user, { writable: [], memoryDenyWriteExecute: true }, ['ProtectSystem=full', 'PrivateTmp=true'])],
  });
}

export interface AutheliaUnitOptions {
  binary: string;
  config: string;
  /** its directory, the only place it writes */
  dir: string;
  /** Authelia's own user (config.systemd.portalUser, else runAs: serviceUser); null: root */
  user?: string | null;
}

export function renderAutheliaUnit(o: AutheliaUnitOptions): string {
  // its SQLite storage and the notifier's file live in its directory, made 0660 by the panel before
  // its first start (common/portal-storage.ts: the panel, a member of its group, runs TOTP on the
  // storage and backs the directory up). UMask=0007: whatever it makes there itself stays open to
  // that group (SQLite's 0644 becomes 0640) and closed to everyone else
  return renderUnit({
    description: 'Authelia authentication portal (relay-panel)',
    execStart: `${o.binary} --config ${o.config}`,
    hardening: [...runAs(o.user), ...sandboxFor(o.user, { writable: [o.dir], memoryDenyWriteExecute: true, umask: '0007' }, ['PrivateTmp=true', 'UMask=0007'])],
  });
}
