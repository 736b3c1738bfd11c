// Attack: read a secret another local user can read. Every route that makes a secret (provisioning:
// portal secrets, the admin password hash, the CA key; agent certificates and P12 bundles,
// enrollment tokens, invitations, portal TOTP secrets, the admin certificate rotation, the 2FA
// secret) is run under umask 0, so a file created without an explicit owner-only mode shows up as
// readable by others; then every file group or others may read must be a public one.
import { readdir, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createTestApp } from '../../../../lib/testing.ts';
import { CHEAP_ONBOARDING, provisionAndWait, walkToDnsReady } from '../../../unit/onboarding/support.ts';
import { withCheapHashing } from '../../../unit/users/support.ts';

const s = suite('security: secrets on disk are owner-only from creation');

/** Certificates, the CRL, openssl's bookkeeping, vhosts, the help page: made to be read by nginx. */
const PUBLIC = [
  /^data\/system\/pki\/(ca\.pem|crl\.pem|ca\.cnf|newcerts\/[0-9A-F]+\.pem|(index\.txt|serial|crlnumber)(\.attr)?(\.old)?)$/,
  /^data\/system\/certs\/(live\/[^/]+\/fullchain\.pem|archive\/[^/]+\/cert\d+\.pem|local-ca\/ca\.pem|auto-renew\.json)$/,
  /^data\/system\/nginx\/(sites-available|sites-enabled)\/relay-[a-z-]+-[a-z0-9.-]+\.conf$/,
  /^data\/system\/nginx\/(sites-available|sites-enabled)\/relay-default\.conf$/,
  // the default server's self-signed certificate (its key stays owner-only)
  /^data\/system\/nginx\/ip-panel-cert\/default\.pem$/,
  /^data\/system\/nginx\/help\/relay-mtls-help\.html$/,
];

/**
 * What chisel and Authelia, each a user of its own, read as members of their directory's group
 *: group-readable, never by others.
 */
const SERVICE_GROUP_READ = [
  /^data\/system\/chisel\/(host-key\.pem|users\.json)$/,
  /^data\/system\/authelia\/(configuration\.yml|users_database\.yml)$/,
];

async function filesUnder(dir: string): Promise<{ path: string; mode: number }[]> {
  const out = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    out.push({ path: relative(dir, path), mode: (await stat(path)).mode & 0o777 });
  }
  return out;
}

s('after provisioning and every secret-making route, only public files are readable by others', async () => {
  const umask = process.umask(0);
  // bcrypt cost 4 for alice too (file modes are the subject here; users/real-cost.test.ts checks the real cost)
  const t = withCheapHashing(await createTestApp({ durable: true, pki: 'openssl', onboarding: CHEAP_ONBOARDING }));
  try {
    await walkToDnsReady(t);
    assert.is((await provisionAndWait(t)).outcome.type, 'complete');
    const made = [
      await t.call('POST', '/api/certs/agent', { body: { label: 'laptop-1', capabilities: ['tunnels:read'] } }),
      await t.call('POST', '/api/certs/agent/enroll', { body: { label: 'ci-runner', capabilities: [] } }),
      await t.call('POST', '/api/invitations', { body: { username: 'bob', email: 'bob@example.test' } }),
      await t.call('POST', '/api/users', { body: { username: 'alice', displayname: 'Alice', email: 'alice@example.test', password: 'a long password' } }),
      await t.call('POST', '/api/users/alice/reset-totp'),
      await t.call('POST', '/api/certs/mtls/rotate'),
      await t.call('POST', '/api/settings/2fa/setup'),
    ];
    assert.equal(made.map((r) => r.status), [201, 201, 201, 201, 200, 200, 200], JSON.stringify(made.map((r) => r.body)));
    const files = await filesUnder(t.dir);
    assert.ok(files.some((f) => f.path === 'config.json'), 'the configuration (session and 2FA secrets) was looked at');
    assert.ok(files.filter((f) => /key|\.p12$/.test(f.path)).length >= 3, `private keys and bundles were looked at: ${files.map((f) => f.path).join(' ')}`);
    const groupRead = (f: { path: string; mode: number }) => f.mode === 0o640 && SERVICE_GROUP_READ.some((p) => p.test(f.path));
    const open = files.filter((f) => (f.mode & 0o077) !== 0 && !PUBLIC.some((p) => p.test(f.path)) && !groupRead(f));
    assert.equal(open.map((f) => `${f.mode.toString(8)} ${f.path}`), []);
    assert.equal(files.filter(groupRead).length, 4, 'the files chisel and Authelia read were looked at');
  } finally {
    process.umask(umask);
    await t.close();
  }
});

s.run();
