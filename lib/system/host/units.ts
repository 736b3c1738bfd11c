// systemd unit files for the programs the panel installs.

export function renderUnit(o: { description: string; execStart: string; hardening: string[]; noNewPrivileges?: boolean }): string {
  return `# managed by relay-panel
[Unit]
Description=${o.description}
After=network-online.target
Wants=network-online.target

[Service]
ExecStart=${o.execStart}
Restart=always
RestartSec=2
${o.noNewPrivileges === false ? '' : 'NoNewPrivileges=true\n'}${o.hardening.join('\n')}${o.hardening.length ? '\n' : ''}
[Install]
WantedBy=multi-user.target
`;
}

export function renderChiselUnit(o: { binary: string; port: number; authfile: string }): string {
  // --authfile grants each client only its reverse ports; chisel reloads it on change (no restart)
  return renderUnit({
    description: 'chisel tunnel server (relay-panel)',
    execStart: `${o.binary} server --reverse --host 127.0.0.1 --port ${o.port} --authfile ${o.authfile}`,
    hardening: ['ProtectSystem=full', 'PrivateTmp=true'],
  });
}

export function renderAutheliaUnit(o: { binary: string; config: string }): string {
  return renderUnit({
    description: 'Authelia authentication portal (relay-panel)',
    execStart: `${o.binary} --config ${o.config}`,
    hardening: ['PrivateTmp=true'],
  });
}
