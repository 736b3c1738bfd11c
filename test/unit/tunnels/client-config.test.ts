import { createPrivateKey } from 'node:crypto';
import { copyFile, mkdtemp, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as plist from 'plist';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { chiselFingerprint, hostKeyPath } from '../../../lib/system/tunnel-server/host-key.ts';
import { createSystem, systemConfig } from '../../../lib/system/index.ts';
import { sandboxPaths } from '../../../lib/system/sandbox/paths.ts';
import { ClientConfig } from '../../../lib/tunnels/client-config.ts';
import { AppError } from '../../../lib/errors.ts';
import { escapeXml } from '../../../lib/markup-escape.ts';
import { renderMacPlist } from '../../../lib/tunnels/mac-plist.ts';
import { createTunnel, DOMAIN, tunnelApp, type TunnelTestApp } from './helpers.ts';

const s = suite<{ t: TunnelTestApp }>('tunnels: agent config and mac plist', {} as { t: TunnelTestApp });
s.before.each(async (ctx) => {
  ctx.t = await tunnelApp();
});
s.after.each(async (ctx) => {
  await ctx.t.close();
});

const SERVER = `https://tunnel.${DOMAIN}:443`;

s('agent-config: enabled tunnels only, chiselArgs exactly as specified, one client session per tunnel, credential in env.AUTH, the host key fingerprint beside them', async ({ t }) => {
  await createTunnel(t, 'web', 9000);
  const off = (await createTunnel(t, 'off', 8500)).body.tunnel.id;
  await createTunnel(t, 'api2', 3000);
  await t.call('PATCH', `/api/tunnels/${off}`, { body: { enabled: false } });
  const { status, body, response } = await t.call('GET', '/api/tunnels/agent-config');
  assert.is(status, 200);
  assert.match(response.headers.get('content-type') ?? '', 'application/json');
  const credential = await t.services.system.tunnelServer.credential();
  const fingerprint = await t.services.system.tunnelServer.fingerprint();
  assert.match(fingerprint, /^[A-Za-z0-9+/]{43}=$/, 'base64 of a SHA-256, as chisel prints it');
  assert.equal(body, {
    domain: DOMAIN,
    chiselServerUrl: SERVER,
    chiselArgs: ['client', '--tls-skip-verify', SERVER, 'R:127.0.0.1:3000:127.0.0.1:3000', 'R:127.0.0.1:9000:127.0.0.1:9000'],
    tunnels: [{ port: 3000, subdomain: 'api2' }, { port: 9000, subdomain: 'web' }],
    clients: [
      { port: 3000, subdomain: 'api2', chiselArgs: ['client', '--tls-skip-verify', SERVER, 'R:127.0.0.1:3000:127.0.0.1:3000'] },
      { port: 9000, subdomain: 'web', chiselArgs: ['client', '--tls-skip-verify', SERVER, 'R:127.0.0.1:9000:127.0.0.1:9000'] },
    ],
    env: { AUTH: `${credential.user}:${credential.password}` },
    fingerprint,
  });
});

s('the fingerprint is the host key file\'s, 0640 in chisel\'s directory (its group reads it), and the same after a restart', async () => {
  const first = await tunnelApp({ durable: true });
  const { body } = await first.call('GET', '/api/tunnels/agent-config');
  const keyFile = hostKeyPath(sandboxPaths(first.services.config.value.dataDir).chisel);
  assert.is(body.fingerprint, chiselFingerprint(createPrivateKey(await readFile(keyFile, 'utf8'))));
  assert.is((await stat(keyFile)).mode & 0o7777, 0o640);
  await first.close({ keep: true });
  const again = await tunnelApp({ dir: first.dir });
  try {
    assert.is((await again.call('GET', '/api/tunnels/agent-config')).body.fingerprint, body.fingerprint);
  } finally {
    await again.close();
  }
});

s('a host key put back while the panel runs (from a backup) is in agent-config as soon as the key directory\'s watch tells', async ({ t }) => {
  const first = (await t.call('GET', '/api/tunnels/agent-config')).body.fingerprint;
  const keyFile = hostKeyPath(sandboxPaths(t.services.config.value.dataDir).chisel);
  // moved into place, as a restore does: a new file, whatever the clock's resolution
  await copyFile(new URL('../../fixtures/chisel-host-key/host-key.pem', import.meta.url), `${keyFile}.restored`);
  await rename(`${keyFile}.restored`, keyFile);
  const restored = chiselFingerprint(createPrivateKey(await readFile(keyFile, 'utf8')));
  assert.is.not(restored, first);
  // the watch's event comes on a later turn of the event loop: milliseconds, not a poll
  let seen = first;
  for (let i = 0; i < 1000 && seen !== restored; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    seen = (await t.call('GET', '/api/tunnels/agent-config')).body.fingerprint;
  }
  assert.is(seen, restored);
});

s('on a box the fingerprint never makes the key: agent-config is 500 naming the missing key file', async ({ t }) => {
  const dir = await mkdtemp(join(tmpdir(), 'relay-chisel-'));
  try {
    const host = createSystem(systemConfig({ driver: 'host', chisel: { dir } }), { dataDir: dir });
    const config = new ClientConfig({ config: t.services.config, store: t.services.store, system: host });
    const error = await config.agentConfigJson().then(
      () => assert.unreachable('no key, no fingerprint'),
      (e: unknown) => e,
    );
    if (!(error instanceof AppError)) throw error;
    assert.equal([error.status, error.message], [500, 'Failed to generate agent config']);
    assert.is(error.details, `the tunnel server's host key ${hostKeyPath(dir)} is missing: put it back from a backup, or run relay-panel install to make a new one (every client must then pin its new fingerprint)`);
    assert.not.ok((await readdir(dir)).includes('host-key.pem'), 'no key made');
    await copyFile(new URL('../../fixtures/chisel-host-key/host-key.pem', import.meta.url), hostKeyPath(dir));
    const answer = JSON.parse(new TextDecoder().decode(await config.agentConfigJson()));
    assert.is(answer.fingerprint, chiselFingerprint(createPrivateKey(await readFile(hostKeyPath(dir), 'utf8'))));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

s('agent-config with no tunnels: just the three leading arguments', async ({ t }) => {
  const { body } = await t.call('GET', '/api/tunnels/agent-config');
  assert.equal(body.chiselArgs, ['client', '--tls-skip-verify', SERVER]);
  assert.equal(body.tunnels, []);
});

s('agent-config is served from cached bytes until the tunnels change', async ({ t }) => {
  const first = await t.services.tunnels.agentConfigJson();
  assert.instance(first, Uint8Array);
  assert.is(await t.services.tunnels.agentConfigJson(), first, 'same bytes object');
  await createTunnel(t, 'web', 9000);
  const second = await t.services.tunnels.agentConfigJson();
  assert.is.not(second, first);
  assert.match(new TextDecoder().decode(second), 'R:127.0.0.1:9000:127.0.0.1:9000');
});

s('agent-config: 400 Domain not configured; 500 Failed to generate agent config', async ({ t }) => {
  await t.services.config.update({ domain: null });
  assert.equal((await t.call('GET', '/api/tunnels/agent-config')).body, { error: 'Domain not configured' });
  assert.is((await t.call('GET', '/api/tunnels/agent-config')).status, 400);
  await t.services.config.update({ domain: DOMAIN });
  t.sandbox.failNext('tunnelServer.credential', 'EACCES');
  const res = await t.call('GET', '/api/tunnels/agent-config');
  assert.is(res.status, 500);
  assert.equal(res.body, { error: 'Failed to generate agent config', details: 'EACCES' });
});

s('agent-config needs tunnels:read: 403 Insufficient certificate capability without it', async ({ t }) => {
  await t.addAgent('reader', ['tunnels:read']);
  await t.addAgent('other', ['sites:read', 'tunnels:write']);
  assert.is((await t.call('GET', '/api/tunnels/agent-config', { as: { agent: 'reader' } })).status, 200);
  const denied = await t.call('GET', '/api/tunnels/agent-config', { as: { agent: 'other' } });
  assert.is(denied.status, 403);
  assert.equal(denied.body, { error: 'Insufficient certificate capability' });
  assert.is((await t.call('GET', '/api/tunnels', { as: { agent: 'other' } })).status, 403);
});

s('mac-plist: every agent may download it (spec: "Agents may download the Mac plist"); the credential only with tunnels:read', async ({ t }) => {
  await createTunnel(t, 'web', 9000);
  await t.addAgent('reader', ['tunnels:read']);
  await t.addAgent('bare', []);
  const auth = async (as: { agent: string } | 'admin') => {
    const { status, body } = await t.call('GET', '/api/tunnels/mac-plist?format=json', { as });
    assert.is(status, 200, `${JSON.stringify(as)} may download the plist`);
    const parsed = plist.parse(body.plist) as { ProgramArguments: string[]; EnvironmentVariables: Record<string, string> };
    assert.is(parsed.ProgramArguments.at(-1), 'R:127.0.0.1:9000:127.0.0.1:9000');
    return parsed.EnvironmentVariables.AUTH;
  };
  const credential = await t.services.system.tunnelServer.credential();
  assert.is(await auth('admin'), `${credential.user}:${credential.password}`);
  assert.is(await auth({ agent: 'reader' }), `${credential.user}:${credential.password}`);
  assert.is(await auth({ agent: 'bare' }), undefined);
  const download = await t.request('GET', '/api/tunnels/mac-plist', { as: { agent: 'bare' } });
  assert.is(download.status, 200);
  assert.not.match(await download.text(), credential.password);
});

s('mac-plist: XML download with application/x-plist and attachment filename; parses as a plist', async ({ t }) => {
  await createTunnel(t, 'web', 9000);
  const off = (await createTunnel(t, 'off', 8500)).body.tunnel.id;
  await t.call('PATCH', `/api/tunnels/${off}`, { body: { enabled: false } });
  const response = await t.request('GET', '/api/tunnels/mac-plist');
  assert.is(response.status, 200);
  assert.is(response.headers.get('content-type'), 'application/x-plist');
  assert.is(response.headers.get('content-disposition'), 'attachment; filename="com.relaypanel.tunnel.plist"');
  const text = await response.text();
  assert.ok(text.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN"'));
  const parsed = plist.parse(text) as Record<string, unknown>;
  const credential = await t.services.system.tunnelServer.credential();
  assert.equal(parsed, {
    Label: 'com.relaypanel.tunnel',
    ProgramArguments: ['/usr/local/bin/chisel', 'client', '--tls-skip-verify', SERVER, 'R:127.0.0.1:9000:127.0.0.1:9000'],
    KeepAlive: true,
    RunAtLoad: true,
    StandardOutPath: '/tmp/com.relaypanel.tunnel.log',
    StandardErrorPath: '/tmp/com.relaypanel.tunnel.error.log',
    EnvironmentVariables: { PATH: '/opt/homebrew/bin:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin', AUTH: `${credential.user}:${credential.password}` },
  });
});

s('mac-plist ?format=json: {plist, instructions} with the six instruction strings', async ({ t }) => {
  await createTunnel(t, 'web', 9000);
  const { status, body } = await t.call('GET', '/api/tunnels/mac-plist?format=json');
  assert.is(status, 200);
  assert.equal(Object.keys(body).sort(), ['instructions', 'plist']);
  assert.equal(Object.keys(body.instructions).sort(), ['download', 'install', 'logs', 'prerequisite', 'status', 'uninstall']);
  for (const value of Object.values(body.instructions)) assert.type(value, 'string');
  assert.match(body.instructions.install, 'launchctl load');
  assert.match(body.instructions.download, ` 'https://panel.${DOMAIN}/api/tunnels/mac-plist' `);
  assert.equal((plist.parse(body.plist) as { ProgramArguments: string[] }).ProgramArguments.at(-1), 'R:127.0.0.1:9000:127.0.0.1:9000');
  assert.equal(body.plist, await (await t.request('GET', '/api/tunnels/mac-plist')).text());
});

s('mac-plist download instruction: the panel URL carries the https port when it is not 443', async () => {
  const t = await tunnelApp({ config: { system: { driver: 'sandbox', ports: { https: 8443 } } } });
  try {
    const { body } = await t.call('GET', '/api/tunnels/mac-plist?format=json');
    assert.match(body.instructions.download, ` 'https://panel.${DOMAIN}:8443/api/tunnels/mac-plist' `);
  } finally {
    await t.close();
  }
});

s('mac-plist: 400 Domain not configured; 500 Failed to generate Mac plist with details; bad format 400', async ({ t }) => {
  t.sandbox.failNext('tunnelServer.credential', 'EACCES');
  const failed = await t.call('GET', '/api/tunnels/mac-plist');
  assert.is(failed.status, 500);
  assert.equal(failed.body, { error: 'Failed to generate Mac plist', details: 'EACCES' });
  assert.is((await t.call('GET', '/api/tunnels/mac-plist?format=yaml')).body.error, 'Validation failed');
  await t.services.config.update({ domain: null });
  const res = await t.call('GET', '/api/tunnels/mac-plist?format=json');
  assert.is(res.status, 400);
  assert.equal(res.body, { error: 'Domain not configured' });
});

s('plist values are XML-escaped and survive a round trip through a plist parser', () => {
  const nasty = `a&b<c>d"e'f`;
  assert.is(escapeXml(nasty), 'a&amp;b&lt;c&gt;d&quot;e&apos;f');
  const xml = renderMacPlist('example.test', [{ port: 2000, subdomain: 'x' }], { user: '<u&>', password: nasty });
  assert.not.match(xml, nasty);
  const parsed = plist.parse(xml) as { EnvironmentVariables: { AUTH: string } };
  assert.is(parsed.EnvironmentVariables.AUTH, `<u&>:${nasty}`);
});

s.run();
