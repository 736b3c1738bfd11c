// The one place that decides how a name the panel serves (a tunnel, a site, panel., auth.) is
// opened from a browser. On a real host nginx answers it over https on the configured https port.
// In the sandbox nothing listens on 443: the panel's own server answers those names
// (lib/sandbox-web), over plain http on the port it listens on, and the sandbox's default domain
// (`relay.localhost`) is one browsers resolve to loopback by themselves.
import type { Config } from './config.ts';
import type { AccessUrls } from './stack-hosts.ts';
import { stackHosts } from './stack-hosts.ts';

/** The domain the sandbox's onboarding offers: Chromium, Firefox and curl resolve `*.localhost` to loopback. */
export const SANDBOX_DOMAIN = 'relay.localhost';

/** What the panel needs to build a link: `<scheme>://<host>[:<port>]`; port null is the scheme's default. */
export interface PublicBase {
  scheme: 'http' | 'https';
  port: number | null;
}

export class PublicLinks {
  /** the port of the panel's server once it answers the served names itself (the sandbox composition) */
  #servedHere: number | null = null;

  constructor(private readonly config: () => Config) {}

  /** Whether the panel plays the host (system.driver sandbox). */
  get sandbox(): boolean {
    return this.config().system.driver === 'sandbox';
  }

  /**
   * Told by the sandbox composition once its server listens and answers tunnels' and sites' names
   * (lib/sandbox-web): from then on links go to it. A runtime without that server (a test's) keeps
   * the real host's links.
   */
  servedHere(port: number): void {
    this.#servedHere = port;
  }

  base(): PublicBase {
    if (this.#servedHere !== null) return { scheme: 'http', port: this.#servedHere };
    const https = this.config().system.ports.https;
    return { scheme: 'https', port: https === 443 ? null : https };
  }

  /** The address a browser opens `host` at. */
  origin(host: string): string {
    const { scheme, port } = this.base();
    return `${scheme}://${host}${port === null ? '' : `:${port}`}`;
  }

  /** The domain onboarding offers prefilled; none on a real host, where only the operator knows it. */
  suggestedDomain(): string | null {
    return this.sandbox ? SANDBOX_DOMAIN : null;
  }

  /** panel., auth. and the panel by IP address (the sandbox has no separate IP listener: its own port). */
  accessUrls(domain: string, ip: string): AccessUrls {
    const h = stackHosts(domain);
    const host = ip.includes(':') ? `[${ip}]` : ip;
    const ipUrl = this.#servedHere !== null ? this.origin(host) : `https://${host}:${this.config().system.ports.ipPanel}`;
    return { panel: this.origin(h.panel), authPortal: this.origin(h.auth), ip: ipUrl };
  }
}
