// The packages adapter: the Debian packages the panel installs after the installer did (a DNS
// plugin of certbot, when the certificate mode becomes wildcard). host.ts runs dpkg-query and
// apt-get, sandbox.ts plays them.

export interface PackagesAdapter {
  /** dpkg says the package is installed */
  installed(name: string): Promise<boolean>;
  install(name: string): Promise<void>;
  /** Takes back an install this panel made (a failed switch leaves no package behind). */
  remove(name: string): Promise<void>;
}
