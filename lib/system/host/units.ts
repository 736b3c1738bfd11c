// systemd unit files for the programs the panel installs.

export function renderUnit(o: { description: string; execStart: string; hardening: string[]; noNewPrivileges?: boolean; socket?: string }): string {
  // a socket unit holds the listening socket across restarts; the service needs it and starts after it
  const socket = o.socket ? `Requires=${o.socket}\nAfter=${o.socket}\n` : '';
  return `# managed by relay-panel
[Unit]
Description=${o.description}
After=network-online.target
Wants=network-online.target
${socket}
[Service]
ExecStart=${o.execStart}
Restart=always
RestartSec=2
${o.noNewPrivileges === false ? '' : 'NoNewPrivileges=true\n'}${o.hardening.join('\n')}${o.hardening.length ? '\n' : ''}
[Install]
WantedBy=multi-user.target
`;
}

/** `User=`/`Group=` lines when the service runs as a user of its own (the user's group has its name). */
function runAs(user: string | null | undefined): string[] {
  return user ? [`User=${user}`, `Group=${user}`] : [];
}

export function renderChiselUnit(o: { binary: string; port: number; authfile: string; user?: string | null }): string {
  // --authfile grants each client only its reverse ports; chisel reloads it on change (no restart)
  return renderUnit({
    description: 'chisel tunnel server (relay-panel)',
    execStart: `${o.binary} server --reverse --host 127.0.0.1 --port ${o.port} --authfile ${o.authfile}`,
    hardening: [...runAs(o.user), 'ProtectSystem=full', 'PrivateTmp=true'],
  });
}

export function renderAutheliaUnit(o: { binary: string; config: string; user?: string | null }): string {
  return renderUnit({
    description: 'Authelia authentication portal (relay-panel)',
    execStart: `${o.binary} --config ${o.config}`,
    hardening: [...runAs(o.user), 'PrivateTmp=true'],
  });
}
