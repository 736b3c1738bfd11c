/** The command certbot's deploy hook runs on a box without a root helper (lib/nginx-reload-command.ts). */
export const NGINX_RELOAD_COMMAND = 'nginx-reload';

/** What certbot's deploy hook runs: this panel's CLI (`panelCli`: node and the launcher) reloading nginx for `configFile`. */
export const panelReloadArgv = (panelCli: readonly string[], configFile: string): string[] => [...panelCli, NGINX_RELOAD_COMMAND, '--config', configFile];
