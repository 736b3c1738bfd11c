import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigStore } from '../../../lib/config.ts';
import { openStore } from '../../../lib/state/store.ts';

// The memory persistence of lib/state: the same Store and ConfigStore API, nothing read or written.

const s = suite('state: memory persistence');
const nowhere = join(tmpdir(), `relay-memory-${process.pid}-never-created`);

s('a memory store starts empty, applies updates and touches no disk', async () => {
  const store = await openStore(nowhere, { persistence: 'memory' });
  assert.is(store.dataDir, nowhere);
  assert.equal(store.tunnels.value, []);
  const now = new Date().toISOString();
  const version = store.agents.version;
  await store.agents.update((agents) => void agents.push({ label: 'a', serial: '1', capabilities: [], allowedSites: [], createdAt: now, expiresAt: null, revokedAt: null, enrollmentMethod: 'p12' as const }));
  assert.is(store.agents.value.length, 1);
  assert.is(store.agents.version, version + 1);
  await store.flush();
  assert.not.ok(existsSync(nowhere));
});

s('closing a changed memory store writes nothing either, even where its directory exists', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'relay-memory-'));
  try {
    const store = await openStore(dir, { persistence: 'memory' });
    await store.agents.update((agents) => void agents.push({ label: 'a', serial: '1', capabilities: [], allowedSites: [], createdAt: new Date().toISOString(), expiresAt: null, revokedAt: null, enrollmentMethod: 'p12' as const }));
    await store.close();
    assert.equal(await readdir(dir), []);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

s('the admin certificate and enrollment token documents are the store\'s too: in memory they write nothing', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'relay-memory-'));
  try {
    const store = await openStore(dir, { persistence: 'memory' });
    await store.adminCert.update((state) => void (state.bundlePending = true));
    const at = new Date().toISOString();
    await store.enrollmentTokens.update((tokens) => void tokens.push({ tokenHash: 'ab', label: 'a', capabilities: [], allowedSites: [], createdAt: at, expiresAt: at, usedAt: null }));
    await store.flush();
    await store.close();
    assert.equal(await readdir(dir), []);
    assert.is(store.adminCert.value.bundlePending, true);
    assert.is(store.enrollmentTokens.value.length, 1);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

s('on disk the documents keep their files and come back at the next open', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'relay-documents-'));
  try {
    const first = await openStore(dir);
    await first.adminCert.update((state) => void (state.authMode = 'hardware-bound'));
    await first.close();
    assert.ok((await readdir(dir)).includes('admin-cert.json'));
    const second = await openStore(dir);
    assert.is(second.adminCert.value.authMode, 'hardware-bound');
    assert.equal(second.enrollmentTokens.value, []);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

s('a throwing update changes nothing in memory either', async () => {
  const store = await openStore(nowhere, { persistence: 'memory' });
  try {
    await store.tunnels.update(() => {
      throw new Error('no');
    });
    assert.unreachable();
  } catch (error) {
    assert.is((error as Error).message, 'no');
  }
  assert.equal(store.tunnels.value, []);
});

s('an in-memory configuration is validated on creation and on every update, and gets a session secret', async () => {
  const input = { ip: '203.0.113.1', domain: null, email: null, dataDir: nowhere, onboarding: { status: 'FRESH' as const } };
  const config = await ConfigStore.inMemory(input);
  assert.is(config.value.sessionSecret?.length, 64);
  await config.update({ domain: 'example.test' });
  assert.is(config.value.domain, 'example.test');
  try {
    await config.update({ email: 'not an email' });
    assert.unreachable();
  } catch (error) {
    assert.match((error as Error).message, 'email');
  }
  assert.is(config.value.email, null);
  try {
    await ConfigStore.inMemory({ ...input, ip: '' });
    assert.unreachable();
  } catch (error) {
    assert.match((error as Error).message, 'ip');
  }
  assert.not.ok(existsSync(nowhere));
});

s.run();
