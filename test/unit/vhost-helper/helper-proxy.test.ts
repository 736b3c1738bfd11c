// The panel's side of the root helper: it prepares what a vhost points at, sends the changes as one
// JSON document to `<helper> apply`, and fails with the helper's own last line.
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { HelperProxy } from '../../../lib/system/host/helper-proxy.ts';
import { SystemError, type VhostChange, type VhostSpec } from '../../../lib/system/types.ts';

const s = suite<{ dir: string }>('helper proxy (panel side)', { dir: '' });
s.before.each(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'relay-helper-proxy-'));
});
s.after.each(async (ctx) => rm(ctx.dir, { recursive: true, force: true }));

/** A stand-in helper: keeps its argv and stdin, then answers with `exit` and `stderr`. */
async function fakeHelper(dir: string, exit: number, stderr = ''): Promise<string> {
  const path = join(dir, 'helper');
  await writeFile(path, `#!/bin/sh\necho "$@" > ${dir}/argv\ncat > ${dir}/stdin\nprintf '%s' '${stderr}' >&2\nexit ${exit}\n`);
  await chmod(path, 0o755);
  return path;
}

function proxy(dir: string, helper: string, prepared: VhostSpec[]): HelperProxy {
  return new HelperProxy({ availableDir: join(dir, 'available'), enabledDir: join(dir, 'enabled') }, {
    helper, timeoutMs: 10_000, prepare: async (spec) => void prepared.push(spec), reload: async () => {},
  });
}

s('put specs are prepared, then every change goes to `<helper> apply` as one document', async ({ dir }) => {
  const prepared: VhostSpec[] = [];
  const changes: VhostChange[] = [{ op: 'put', spec: { kind: 'ip-panel' }, enabled: true }, { op: 'remove', name: 'relay-app-a.example.com.conf' }];
  await proxy(dir, await fakeHelper(dir, 0), prepared).apply(changes);
  assert.equal(prepared, [{ kind: 'ip-panel' }]);
  assert.is((await readFile(join(dir, 'argv'), 'utf8')).trim(), 'apply');
  assert.equal(JSON.parse(await readFile(join(dir, 'stdin'), 'utf8')), { changes });
});

s("a refusal fails with the helper's last line as a SystemError", async ({ dir }) => {
  const helper = await fakeHelper(dir, 1, 'warming up\nInvalid vhost request: changes.0.spec.fqdn: must be a lowercase domain name\n');
  const error = await proxy(dir, helper, []).apply([{ op: 'put', spec: { kind: 'panel', fqdn: 'X' }, enabled: true }]).then(() => null, (e: unknown) => e);
  assert.instance(error, SystemError);
  assert.is((error as SystemError).message, 'Invalid vhost request: changes.0.spec.fqdn: must be a lowercase domain name');
});

s.run();
