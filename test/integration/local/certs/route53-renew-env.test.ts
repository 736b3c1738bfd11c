// The certificates page's renew runs certbot with route53's credentials variable, as issuance does
// (lib/system/certs/renewal-env.ts): a node script plays certbot and records the variable.
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createHostCerts } from '../../../../lib/system/certs/host.ts';
import { renewalEnvironment } from '../../../../lib/system/certs/renewal-env.ts';
import { systemConfig } from '../../../../lib/system/config.ts';
import { directRootActions } from '../../../../lib/system/root/root-actions.ts';

const s = suite('renew carries route53\'s credentials variable');

s('renew: certbot sees AWS_SHARED_CREDENTIALS_FILE naming <dataDir>/dns01/route53.ini', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'relay-route53-renew-'));
  try {
    const certbot = join(dir, 'certbot');
    await writeFile(certbot, `#!${process.execPath}\nrequire('node:fs').writeFileSync(${JSON.stringify(join(dir, 'seen'))}, String(process.env.AWS_SHARED_CREDENTIALS_FILE));\n`);
    await chmod(certbot, 0o755);
    const config = systemConfig({ driver: 'host', binaries: { certbot }, acme: { configDir: join(dir, 'le') } });
    const dataDir = join(dir, 'data');
    await createHostCerts(config, directRootActions(config), Date.now, renewalEnvironment(dataDir)).renew('example.test');
    assert.is(await readFile(join(dir, 'seen'), 'utf8'), join(dataDir, 'dns01', 'route53.ini'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

s.run();
