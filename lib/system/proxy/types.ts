// The proxy (nginx) adapter as the domain services see it; host.ts drives the real program, sandbox.ts plays it.

/**
 * Panel paths nginx proxies whatever the client certificate says: the routes marked public, given
 * by the composition root (lib/main.ts). `exact` become `location =`, `prefix` `location ^~`.
 */
export interface PublicLocations {
  exact: readonly string[];
  prefix: readonly string[];
}

/** What a virtual host is for; the adapter renders it with its own ports and paths. */
export type VhostSpec =
  | { kind: 'ip-panel' }
  // the catch-all of ports 80 and 443: names without a vhost get a plain 404
  | { kind: 'default' }
  | { kind: 'panel'; fqdn: string }
  | { kind: 'auth-portal'; fqdn: string }
  | { kind: 'tunnel-server'; fqdn: string }
  // public: no auth portal at all (an admin's explicit choice)
  | { kind: 'app'; fqdn: string; port: number; public?: true; cert?: string; shared?: true }
  // one server for every shared app (`shared`) under `*.<fqdn>`: with `fqdn`'s wildcard
  // certificate, or (`sni`, per-name mode) each name's own, chosen by the name asked for
  | { kind: 'tunnels'; fqdn: string; sni?: true }
  | { kind: 'site'; fqdn: string; root: string; spaMode: boolean; protected: boolean; closed?: true; cert?: string };
// `cert`: the certbot lineage the vhost serves when it is not the name's own (the wildcard
// certificate of the base domain, lib/host-state/wildcard-lineage.ts). `shared`: served by the
// `tunnels` vhost of its parent domain, whose one server carries every such app (a vhost per app
// costs nginx a server and a TLS context each: a test and a reload grow with their number); the
// app's own file is then its route, one line naming its port, linked in the routes directory.
// A protected vhost asks the portal on loopback and sends a visitor to the login page the portal's
// answer names (its Location header), so no spec names the portal. `closed`: protected, but out of
// the portal's reach (lib/portal-reach.ts): every request answers 403.

export type VhostChange =
  | { op: 'put'; spec: VhostSpec; enabled: boolean }
  | { op: 'enable' | 'disable' | 'remove'; name: string };

export interface VhostState {
  name: string;
  written: boolean;
  enabled: boolean;
  /** present when the file was edited after relay-panel wrote it (lib/system/proxy/vhost-stamp.ts) */
  edited?: true;
}

export interface LinkPlaces {
  enabled: ReadonlySet<string>;
  routes: ReadonlySet<string>;
}

export interface ProxyAdapter {
  /** The file name a spec is stored under (stable, derived from kind and fqdn). */
  vhostName(spec: VhostSpec): string;
  /**
   * Applies the changes, tests the whole configuration and reloads. On a failed test every
   * touched vhost is restored to its previous state and a SystemError carries nginx's message.
   */
  apply(changes: VhostChange[]): Promise<void>;
  /**
   * Rewrites each given vhost whose file is there and whose text differs from what the current
   * templates make, keeping its link; tests and reloads once, and not at all when none differs.
   * Resolves with the names rewritten; a failed test puts them all back and throws.
   */
  refresh(specs: VhostSpec[], options?: RefreshOptions): Promise<string[]>;
  state(name: string): Promise<VhostState>;
  /** The vhosts of one kind written or linked, in name order (a link whose file is gone is `written: false`). */
  list(kind: VhostSpec['kind']): Promise<VhostState[]>;
  /**
   * The names linked in sites-enabled and in the routes directory, two listings: where each link
   * is, which `state` and `list` do not tell (a link in either is `enabled`). The tunnel repair
   * compares it with where the spec's kind belongs.
   */
  linkPlaces(): Promise<LinkPlaces>;
  /** Reload without changes (for example after a new CRL). */
  reload(): Promise<void>;
  /**
   * Runs `run` (the start's tunnel repair and vhost refresh) with one look at each vhost file: a
   * file's size, times and inode taken in it serve every later question of the same run, until
   * the adapter writes a vhost. Without it each question looks again.
   */
  onePass?<T>(run: () => Promise<T>, options?: OnePassOptions): Promise<T>;
  /**
   * Leaves `look` (the start's look at the files it took on their stamps' word) to run once: at
   * `lookNow`, or before the adapter's next change, refresh or reload (nginx reads every file),
   * whichever comes first. A refresh with `touchedOnly` (the look's own) does not wait for it; the
   * start's own refresh in its pass looks at every file itself when it has anything to write.
   */
  deferLook(look: () => Promise<unknown>): void;
  /** Starts the look left unless it started; resolves once it is over (at once when there is none). */
  lookNow(): Promise<unknown>;
  /** Forgets the look left when it has not started; answers it when it has (a stop waits for it). */
  dropLook(): Promise<unknown>;
}

export interface OnePassOptions {
  /**
   * The kind whose files the panel stamped are taken to be as the stamp says, and not looked at:
   * the tunnels' (`app`), whose number grows with the box, at the start before it listens.
   */
  takeStampsOf?: VhostSpec['kind'];
}

export interface RefreshOptions {
  /**
   * Only files there and touched since the panel stamped them (a hand edit), whatever their spec,
   * each looked at (never on a stamp's word): the start's look (`deferLook`). A file the panel
   * wrote since it was stamped is left alone.
   */
  touchedOnly?: boolean;
}
