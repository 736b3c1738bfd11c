// Access travels with a backup: the records' `access` is in the archive, and a restore brings back
// the rules, the portal's configuration rendered from them and a public tunnel's vhost.
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { restoreBetweenRuns } from '../../../lib/restore-between-runs.ts';
import { sandboxPaths } from '../../../lib/system/sandbox/paths.ts';
import { createTestApp, type TestApp } from '../../../lib/testing.ts';
import { timed } from '../../helpers/timeout.ts';
import { seedPortalUsers } from '../sites/helpers.ts';

const s = suite('access: backup and restore');

const portalRules = (t: TestApp) => JSON.parse(readFileSync(join(sandboxPaths(t.services.store.dataDir).authelia, 'configuration.yml'), 'utf8').replace(/^#.*$/gm, '')).access_control.rules;

s('a restore brings back each tunnel\'s access, the portal rules and the public vhost', timed(30_000, async () => {
  const t = await createTestApp({ durable: true });
  await t.completeOnboarding();
  await seedPortalUsers(t, 'dana');
  const { authPortal } = t.services.system;
  await authPortal.install({ domain: t.services.config.value.domain!, users: await authPortal.readUsers() });
  const team = (await t.call('POST', '/api/tunnels', { body: { subdomain: 'team', port: 9001, access: { mode: 'restricted', users: ['dana'] } } })).body.tunnel;
  const open = (await t.call('POST', '/api/tunnels', { body: { subdomain: 'open', port: 9002, access: { mode: 'public' } } })).body.tunnel;
  const archive = join(t.dir, 'backup.tar.gz');
  const download = await t.request('GET', '/api/backup');
  await writeFile(archive, new Uint8Array(await download.arrayBuffer()));
  // changed after the backup: the restore must bring the backup's access back
  for (const id of [team.id, open.id]) assert.is((await t.call('PUT', `/api/tunnels/${id}/access`, { body: {} })).status, 200);
  const configFile = t.services.config.file;
  await t.close({ keep: true });
  await restoreBetweenRuns(configFile, archive, { ...process.env, LOG_LEVEL: 'warn' }, process.cwd(), { log: () => {}, error: (line) => assert.unreachable(line) });
  const again = await createTestApp({ dir: t.dir });
  try {
    assert.equal(again.services.store.tunnels.get(team.id)?.access, { mode: 'restricted', users: ['dana'], groups: [], rules: [] });
    assert.is(again.services.store.tunnels.get(open.id)?.access?.mode, 'public');
    assert.match(JSON.stringify(portalRules(again)), /user:dana/);
    const vhost = readFileSync(join(sandboxPaths(again.services.store.dataDir).sitesAvailable, `relay-app-${open.fqdn}.conf`), 'utf8');
    assert.not.match(vhost, /auth_request/);
  } finally {
    await again.close();
  }
}));

s.run();
