// The rehearsal start's command and where it leaves its code cache (lib/rehearsal.ts runs it, the
// launcher writes the cache, lib/startup-snapshot.mjs hands the cache to the snapshot's builder).
// Plain JS with no imports: the launcher, the bundle and the build scripts all import it, and the
// launcher must not load a module more than these two names.

export const REHEARSE_COMMAND = 'rehearse';

/** The code cache the launcher writes during `rehearse <dir>`: inside that directory. */
export const rehearsalCacheFile = (dir) => `${dir}/code-cache`;

/** What the snapshot's builder prints when it compiled the bundle with the rehearsal's code cache (lib/snapshot-entry.ts). */
export const CODE_CACHE_TAKEN = 'relay-panel snapshot: code cache taken';
