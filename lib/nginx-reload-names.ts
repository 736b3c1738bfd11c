/** The command certbot's deploy hook runs on a box without a root helper (lib/nginx-reload-command.ts). */
export const NGINX_RELOAD_COMMAND = 'nginx-reload';
