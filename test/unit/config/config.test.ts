import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigSchema, ConfigStore, type ConfigPatch } from '../../../lib/config.ts';

const s = suite<{ dir: string }>('configuration', { dir: '' });
s.before.each(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'relay-config-'));
});
s.after.each(async (ctx) => {
  await rm(ctx.dir, { recursive: true, force: true });
});

const minimal = (dir: string) => ({ ip: '203.0.113.10', domain: null, email: null, dataDir: join(dir, 'data'), onboarding: { status: 'FRESH' } });

s('a minimal file loads with the spec defaults, a generated sessionSecret and the sandbox system', async ({ dir }) => {
  const file = join(dir, 'config.json');
  await writeFile(file, JSON.stringify(minimal(dir)));
  const config = await ConfigStore.open(file);
  assert.is(config.value.maxSiteSize, 524288000);
  assert.equal(config.value.panel2fa, { enabled: false, secret: null, setupComplete: false });
  assert.is(config.value.sessionSecret!.length, 64);
  assert.is(config.value.system.driver, 'sandbox');
  assert.equal(config.value.listen, { host: '127.0.0.1', port: 3100 });
  assert.is((await stat(file)).mode & 0o777, 0o600);
  const reread = await ConfigStore.open(file);
  assert.is(reread.value.sessionSecret, config.value.sessionSecret);
});

s("a file from before Portlama's `defaultPolicy` loads, its `defaultPolicyId` read as it (null as `default`) and written under the new name", async ({ dir }) => {
  const file = join(dir, 'config.json');
  const older = (defaultPolicyId: string | null) => ({ ...minimal(dir), plugins: { allowedScopes: [], pushInstall: { enabled: true, defaultPolicyId } } });
  await writeFile(file, JSON.stringify(older('0b7c3f52-policy')));
  const config = await ConfigStore.open(file);
  assert.equal(config.value.plugins.pushInstall, { enabled: true, defaultPolicy: '0b7c3f52-policy' });
  await config.flush();
  assert.equal(JSON.parse(await readFile(file, 'utf8')).plugins.pushInstall, { enabled: true, defaultPolicy: '0b7c3f52-policy' });

  await writeFile(file, JSON.stringify(older(null)));
  assert.equal((await ConfigStore.open(file)).value.plugins.pushInstall, { enabled: true, defaultPolicy: 'default' });
  await writeFile(file, JSON.stringify(minimal(dir)));
  assert.equal((await ConfigStore.open(file)).value.plugins.pushInstall, { enabled: false, defaultPolicy: 'default' });
});

s('an invalid file stops loading with the file, the field and the problem, and is not overwritten', async ({ dir }) => {
  const file = join(dir, 'config.json');
  const text = JSON.stringify({ ...minimal(dir), email: 'not-an-email', onboarding: { status: 'DONE' } });
  await writeFile(file, text);
  let message = '';
  await ConfigStore.open(file).catch((e: Error) => (message = e.message));
  assert.match(message, file);
  assert.match(message, 'email: ');
  assert.match(message, 'onboarding.status: ');
  assert.is(await readFile(file, 'utf8'), text);
});

s('unknown keys and a non-loopback listener are refused', async ({ dir }) => {
  const file = join(dir, 'config.json');
  await writeFile(file, JSON.stringify({ ...minimal(dir), listen: { host: '0.0.0.0', port: 3100 }, domian: 'typo.test' }));
  let message = '';
  await ConfigStore.open(file).catch((e: Error) => (message = e.message));
  assert.match(message, 'listen.host: must be a loopback address');
  assert.match(message, 'domian');
});

s('updates merge onboarding as a sub-object and replace other keys', async ({ dir }) => {
  const file = join(dir, 'config.json');
  await writeFile(file, JSON.stringify({ ...minimal(dir), panel2fa: { enabled: false, secret: 'ABC', setupComplete: true } }));
  const config = await ConfigStore.open(file);
  await config.update({ onboarding: { status: 'DOMAIN_SET' }, domain: 'example.test', panel2fa: { enabled: true, secret: null, setupComplete: false } });
  assert.is(config.value.onboarding.status, 'DOMAIN_SET');
  assert.equal(config.value.panel2fa, { enabled: true, secret: null, setupComplete: false });
  const onDisk = JSON.parse(await readFile(file, 'utf8'));
  assert.is(onDisk.domain, 'example.test');
  assert.is(onDisk.onboarding.status, 'DOMAIN_SET');
});

s('an invalid update is refused and changes nothing, in memory or on disk', async ({ dir }) => {
  const file = join(dir, 'config.json');
  await writeFile(file, JSON.stringify(minimal(dir)));
  const config = await ConfigStore.open(file);
  const before = await readFile(file, 'utf8');
  let message = '';
  await config.update({ email: 'nope' as string }).catch((e: Error) => (message = e.message));
  assert.match(message, 'email');
  assert.is(config.value.email, null);
  assert.is(await readFile(file, 'utf8'), before);
});

// An update checks only the fields it replaces: each kind of refusal a whole check gives must
// still come, from inside a field, across a field's own parts, and for a key the schema lacks.
s('updates refused inside a replaced field, across its parts, and for an unknown key', async ({ dir }) => {
  const config = await ConfigStore.inMemory(minimal(dir) as never);
  const before = JSON.stringify(config.value);
  const refusals: [ConfigPatch, string][] = [
    [{ onboarding: { status: 'DONE' as 'FRESH' } }, 'onboarding.status'],
    [{ streams: { publicPorts: { from: 30000, to: 20000 } } }, 'from must not be above to'],
    [{ listen: { host: '0.0.0.0', port: 3100 } }, 'must be a loopback address'],
    [{ alerts: { allowPrivateTargets: true, extra: 1 } as never }, 'extra'],
    [{ domian: 'typo.test' } as never, 'domian'],
    [{ domain: 'ok.test', email: 'nope' }, 'email'],
  ];
  for (const [patch, problem] of refusals) {
    let message = '';
    await config.update(patch).catch((e: Error) => (message = e.message));
    assert.match(message, problem, JSON.stringify(patch));
    assert.is(JSON.stringify(config.value), before);
  }
});

s('an accepted update holds what a whole check of it gives: defaults, values and key order', async ({ dir }) => {
  const config = await ConfigStore.inMemory(minimal(dir) as never);
  await config.update({ alerts: {} as never, onboarding: { status: 'DOMAIN_SET' }, domain: 'example.test', certLimits: undefined });
  await config.update({ metrics: { enabled: false } });
  assert.is(config.value.alerts.allowPrivateTargets, false);
  const whole = ConfigSchema.parse(config.value);
  assert.equal(config.value, whole);
  assert.equal(Object.keys(config.value), Object.keys(whole));
});

s('create refuses to replace an existing file', async ({ dir }) => {
  const file = join(dir, 'config.json');
  await writeFile(file, 'keep me');
  let failed = false;
  await ConfigStore.create(file, minimal(dir) as never).catch(() => (failed = true));
  assert.ok(failed);
  assert.is(await readFile(file, 'utf8'), 'keep me');
});

s.run();
