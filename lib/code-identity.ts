// Which code this process runs, for what may be kept across starts as long as the code is the same
// (the vhost templates' fingerprint): the SHA-256 of the bundle, which its launcher and the startup
// snapshot's builder pass it (lib/bundle-parameters.ts). Null where no bundle runs (the TypeScript
// sources: tests, tools), so nothing is kept there.
declare const RELAY_BUNDLE_SHA256: string | undefined;

export const codeIdentity: string | null = typeof RELAY_BUNDLE_SHA256 === 'string' && /^[0-9a-f]{64}$/.test(RELAY_BUNDLE_SHA256) ? RELAY_BUNDLE_SHA256 : null;
