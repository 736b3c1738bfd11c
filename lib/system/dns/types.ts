// The dns adapter as the domain services see it; host.ts drives the real program, sandbox.ts plays it.

export interface DnsAdapter {
  /** IPv4 addresses of the name; an empty list when it does not resolve (NXDOMAIN, NODATA). */
  resolve4(name: string): Promise<string[]>;
}
