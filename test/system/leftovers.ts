// What an uninstall leaves behind: every path of the box's root file system that was not there
// before the install, less what the box itself makes as it runs (journal, caches, logs, named's
// journal of zone updates, and what Debian's own certbot writes when the test runs it as root). The
// operator's certificates in /etc/letsencrypt are compared byte for byte by the test itself.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** Paths the box's own running writes, or that the operator made (the unpacked releases). */
const NOT_THE_INSTALLS = [
  /^\/(proc|sys|dev|run|tmp|var\/tmp)(\/|$)/,
  /^\/var\/log(\/|$)/,
  /^\/var\/lib\/(systemd|dbus|private|apt|dpkg|ucf|nginx|sudo|fail2ban|ufw|dhcp|bind)(\/|$)/,
  /^\/var\/cache\/(apt|debconf|ldconfig|private|man|bind)(\/|$)/,
  /^\/etc\/(machine-id|mtab|resolv\.conf|\.pwd\.lock|ld\.so\.cache)$/,
  /^\/root\/relay-panel-\d[^/]*(\/|$)/,
  /^\/root\/\.[^/]+(\/|$)/,
  // Debian's certbot.service, run by the test as root, keeps its state here
  /^\/etc\/letsencrypt(\/|$)/,
  /^\/var\/lib\/letsencrypt(\/|$)/,
];

export async function pathsOf(root: string): Promise<Set<string>> {
  const out = new Set<string>();
  const walk = async (rel: string) => {
    const entries = await readdir(join(root, rel), { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      const path = `${rel}/${e.name}`;
      if (NOT_THE_INSTALLS.some((re) => re.test(path))) continue;
      out.add(path);
      if (e.isDirectory()) await walk(path);
    }
  };
  await walk('');
  return out;
}

export function leftovers(before: Set<string>, after: Set<string>): string[] {
  return [...after].filter((p) => !before.has(p)).sort();
}
