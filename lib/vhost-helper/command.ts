/** The bundle's command for the root vhost helper; its own module so the server's start loads none of the helper. */
export const VHOST_HELPER_COMMAND = 'vhosts';
