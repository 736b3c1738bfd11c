// What the relay's vhosts need of nginx's http context, set once: in the default server's file, the
// one vhost every box that serves a name has (nginx refuses a directive of this kind given twice).
//
// A name may be 253 characters (a tunnel's `<subdomain>.<domain>`, a site's custom domain), and
// nginx keeps every exact server_name, and every key of the shared tunnels' `map $host`, in a hash
// whose bucket must hold the name: 8 bytes of pointer, the name and 2 more rounded up to 8, and a
// closing pointer, 272 bytes for 253 characters. The default bucket is one CPU cache line (64 bytes
// here), too small past about 46 characters: `nginx -t` then fails with "could not build
// server_names_hash" (or map_hash) and refuses every change. 512 is the next power of two, so it is
// a whole number of cache lines on any CPU (32 to 256 bytes), as nginx rounds it to one anyway.
// Debian's nginx.conf leaves server_names_hash_bucket_size commented out and sets neither.
export const NAME_HASH_BUCKET_SIZE = 512;

export const HTTP_CONTEXT_DIRECTIVES = ['server_names_hash_bucket_size', 'map_hash_bucket_size'] as const;

/**
 * The lines of the default server's file that set them, but not those the box's main configuration
 * already sets (main-conf-directives.ts): nginx refuses a second one, so the operator's value stands
 * and a comment says so (doctor says when it is too small for the longest name).
 */
export function httpContextLines(setInMainConf: ReadonlyMap<string, string> = new Map()): string[] {
  return HTTP_CONTEXT_DIRECTIVES.map((name) => {
    const theirs = setInMainConf.get(name);
    if (theirs === undefined) return `${name} ${NAME_HASH_BUCKET_SIZE};`;
    // a quoted value could hold a line break: only a plain one is repeated in the comment
    return `# ${name}${/^\w{1,16}$/.test(theirs) ? ` ${theirs}` : ''}: set by nginx's main configuration`;
  });
}
