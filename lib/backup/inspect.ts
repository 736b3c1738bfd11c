import { readdir, readFile, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { extract, list } from 'tar';
import { openStore } from '../state/store.ts';
import { parseUsersDatabase } from '../system/auth-portal/users-database.ts';
import type { BackupSummary } from './summary.ts';
import { verifyArchive } from './verify-archive.ts';

/** The records (`data/<name>.json` and its journals) and the portal's users, wherever the box kept them. */
const RECORDS = /^data\/[a-zA-Z]+\.json(\.[^/]*)?$|^data\/[^/]*\.journal$/;
const USERS = /^(data\/system\/authelia|portal)\/users_database\.yml$/;
const LIVE_CERT = /^(data\/system\/certs\/live|letsencrypt\/live)\/([^/]+)\/?$/;

/**
 * What an archive holds, after the same checks as the restore command (lib/backup/verify-archive.ts):
 * its date and domain, and how many of each thing a restore would put in place of today's. Only the
 * records and the users file are unpacked, into a scratch directory `beside` gives, removed after.
 */
export async function inspectArchive(file: string, beside: string): Promise<BackupSummary> {
  const { manifest, config } = await verifyArchive(file);
  const certificates = new Set<string>();
  await list({ file, onReadEntry: (entry) => {
    const live = LIVE_CERT.exec(entry.path);
    if (live && entry.type === 'Directory') certificates.add(live[2]!);
  } });
  const scratch = await mkdtemp(join(beside, '.relay-inspect-'));
  try {
    await extract({ file, cwd: scratch, strict: true, filter: (path) => RECORDS.test(path) || USERS.test(path) || path === 'data' || path === 'data/' });
    const store = await openStore(join(scratch, 'data'));
    const counts = {
      tunnels: store.tunnels.value.length, sites: store.sites.value.length, agents: store.agents.value.length,
      plugins: store.plugins.value.length, webhooks: store.webhooks.value.length, users: 0, certificates: certificates.size,
    };
    await store.close();
    const usersFile = (await readdir(scratch, { recursive: true })).find((p) => USERS.test(p));
    if (usersFile) counts.users = parseUsersDatabase(await readFile(join(scratch, usersFile), 'utf8')).length;
    return { created: manifest.created, domain: config.domain, onboarding: config.onboarding.status, sections: manifest.sections, counts };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
