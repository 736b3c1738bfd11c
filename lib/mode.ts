/** `production` reads the proxy's certificate headers; `development` treats every caller as admin. */
export type Mode = 'development' | 'production';

/**
 * The platform spec's rule: development when NODE_ENV is `development` or unset (empty counts as
 * unset); any other value (`staging`, `Production`, a typo) checks certificates, so a mistyped
 * value never opens the panel to every caller.
 */
export const modeOf = (nodeEnv: string | undefined): Mode => (!nodeEnv || nodeEnv === 'development' ? 'development' : 'production');
