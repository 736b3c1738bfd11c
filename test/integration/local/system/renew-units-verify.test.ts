// The panel's own renewal timer and service (lib/system/certs/renew-units.ts), read by systemd itself:
// systemd-analyze verify finds nothing to complain about (what they say: test/unit/system/renew-units.test.ts).
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { systemConfig, type SystemConfigInput } from '../../../../lib/system/config.ts';
import { renewUnitFiles } from '../../../../lib/system/certs/renew-units.ts';

const s = suite("the panel's renewal units");
const box = (over: SystemConfigInput = {}) => systemConfig({ driver: 'host', systemd: { runAs: 'relay-panel' }, ...over });

s('systemd reads both units without a complaint (systemd-analyze verify)', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'relay-renew-units-'));
  try {
    const system = box({ systemd: { runAs: 'relay-panel', unitDir: dir }, acme: { caBundle: '/etc/ssl/certs/ca-certificates.crt' }, binaries: { certbot: '/usr/bin/certbot' } });
    const files = renewUnitFiles(system);
    for (const f of files) await writeFile(f.path, f.content);
    const { stderr } = await promisify(execFile)('systemd-analyze', ['verify', ...files.map((f) => f.path)], { cwd: dir });
    assert.is(stderr, '');
    // and it does complain about a unit it cannot use: the check can fail
    await writeFile(files[1]!.path, files[1]!.content.replace('Persistent=', 'Persistant='));
    const bad = await promisify(execFile)('systemd-analyze', ['verify', ...files.map((f) => f.path)], { cwd: dir });
    assert.match(bad.stderr, "Unknown key 'Persistant'");
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

s.run();
