import { randomUUID } from 'node:crypto';
import type { TestApp } from '../../lib/testing.ts';

/** Site records with these names, straight into the store (for rules that only need a site to exist), made at the app clock's now. */
export async function seedSites(t: TestApp, ...names: string[]): Promise<void> {
  const createdAt = new Date(t.services.clock.now()).toISOString();
  await t.services.store.sites.update((sites) => {
    for (const name of names) {
      const id = randomUUID();
      sites.push({
        id, name, fqdn: `${name}.example.test`, type: 'managed', spaMode: false, autheliaProtected: false, allowedUsers: [],
        dnsVerified: true, certIssued: true, rootPath: `/srv/sites/${id}`, createdAt, totalSize: 0,
      });
    }
  });
}
