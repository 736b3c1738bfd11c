// systemd unit files for the programs the panel installs.

export function renderChiselUnit(o: { binary: string; port: number; authfile: string }): string {
  return `# managed by relay-panel
[Unit]
Description=chisel tunnel server (relay-panel)
After=network-online.target
Wants=network-online.target

[Service]
# --authfile grants each client only its reverse ports; chisel reloads it on change (no restart)
ExecStart=${o.binary} server --reverse --host 127.0.0.1 --port ${o.port} --authfile ${o.authfile}
Restart=always
RestartSec=2
NoNewPrivileges=true
ProtectSystem=full
PrivateTmp=true

[Install]
WantedBy=multi-user.target
`;
}

export function renderAutheliaUnit(o: { binary: string; config: string }): string {
  return `# managed by relay-panel
[Unit]
Description=Authelia authentication portal (relay-panel)
After=network-online.target
Wants=network-online.target

[Service]
ExecStart=${o.binary} --config ${o.config}
Restart=always
RestartSec=2
NoNewPrivileges=true
PrivateTmp=true

[Install]
WantedBy=multi-user.target
`;
}
