// apt-get's arguments, shared by the installer's package step and the panel's packages adapter:
// one way of installing, without the recommended extras.

export function aptInstallArgs(packages: readonly string[]): string[] {
  return ['install', '-y', '--no-install-recommends', ...packages];
}

export function aptRemoveArgs(packages: readonly string[]): string[] {
  return ['remove', '-y', ...packages];
}

export const DPKG_STATUS_ARGS = (pkg: string): string[] => ['-W', '-f', '${Status}', pkg];

/** dpkg-query's status line of an installed package */
export const isInstalledStatus = (stdout: string): boolean => stdout.includes('install ok installed');

/** Only Debian package names (policy 5.6.1): nothing that apt-get could read as an option. */
export function assertPackageName(name: string): string {
  if (!/^[a-z0-9][a-z0-9+.-]{1,99}$/.test(name)) throw new Error(`not a Debian package name: ${JSON.stringify(name)}`);
  return name;
}
