// Child process of crash-storm.test.ts: writes every collection at once, forever, through each
// one's write path (a store collection's `edit`; the portal users database's read, edit and
// atomic rewrite, one change at a time as UserService does), and prints `<collection> <n>` for
// each acknowledged write. A low compactAfterBytes keeps snapshots being rewritten meanwhile.
import { PortalFiles } from '../../../../lib/system/auth-portal/portal-files.ts';
import { openStore } from '../../../../lib/state/store.ts';
import { COLLECTION_NAMES, putSample } from '../../../helpers/store-samples.ts';
import { portalUser } from './crash-storm-users.ts';

const [dataDir, firstText, compactText] = process.argv.slice(2);
if (!dataDir) throw new Error('usage: crash-storm-writer.ts <dataDir> <first number> <compactAfterBytes>');
const store = await openStore(dataDir, { compactAfterBytes: Number(compactText) });
const portal = new PortalFiles(`${dataDir}/authelia`, { httpsPort: 443, listenPort: 9091, adminGroup: 'admins' });
const first = Number(firstText);
const acknowledge = (name: string, n: number) => process.stdout.write(`${name} ${n}\n`);

async function storeStorm(name: (typeof COLLECTION_NAMES)[number]): Promise<never> {
  for (let n = first; ; n += 4) {
    // concurrent edits of one collection share a journal frame (group commit)
    await Promise.all([0, 1, 2, 3].map((i) => putSample(store, name, n + i).then(() => acknowledge(name, n + i))));
  }
}

async function usersStorm(): Promise<never> {
  for (let n = first; ; n++) {
    await portal.writeUsers([...(await portal.readUsers()), portalUser(n)]);
    acknowledge('users', n);
  }
}

process.stdout.write('ready\n');
await Promise.all([...COLLECTION_NAMES.map(storeStorm), usersStorm()]);
