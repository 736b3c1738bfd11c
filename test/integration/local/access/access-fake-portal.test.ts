// Access rules through a REAL nginx (its own prefix, free loopback ports) and a FAKE portal that
// decides as Authelia 4.38 documents its access_control (test/helpers/fake-authelia-rules.ts). The
// panel (sandbox) renders the vhosts and the portal configuration; the fake portal reads that
// configuration and the users at each start, as Authelia does, i.e. after the panel restarts it.
import { readFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { desiredTunnel } from '../../../../lib/host-state/desired.ts';
import { sandboxControls } from '../../../../lib/system/sandbox-system.ts';
import { sandboxPaths } from '../../../../lib/system/sandbox/paths.ts';
import { renderVhost, type TemplateContext } from '../../../../lib/system/proxy/templates.ts';
import { createTestApp, type TestApp } from '../../../../lib/testing.ts';
import { certPairs } from '../../../helpers/cert-pairs.ts';
import { answerWithRules, SESSION_COOKIE, type FakeAccessControl, type FakeUser } from '../../../helpers/fake-authelia-rules.ts';
import { SAMPLE_TEMPLATE_CONTEXT } from '../../../helpers/template-context.ts';
import { withTimeout } from '../../../helpers/timeout.ts';
import { loopbackRequest, type TestResponse } from '../../../infra/http.ts';
import { freePorts } from '../../../infra/ports.ts';
import { startProcess, stopProcess, waitFor, type Managed } from '../../../infra/processes.ts';
import { seedPortalUsers } from '../../../unit/sites/helpers.ts';
import { ownNginxConf } from '../../../helpers/own-nginx-conf.ts';

const NGINX = '/usr/sbin/nginx';
const DOMAIN = 'example.test';
const TEAM = `team.${DOMAIN}`;
const OPEN = `open.${DOMAIN}`;

interface Ctx {
  dir: string; t: TestApp; nginx: Managed | null; servers: Server[]; https: number; ca: string;
  portal: { ac: FakeAccessControl; users: FakeUser[]; starts: number; asked: string[] };
  teamId: string;
}
const s = suite<Ctx>('access: real nginx, fake portal evaluating the rendered access_control', {} as Ctx);

const nginxConf = ownNginxConf();

function listen(port: number, handler: Parameters<typeof createServer>[1]): Promise<Server> {
  const server = createServer(handler!);
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

async function loadPortal(ctx: Ctx): Promise<void> {
  const config = await readFile(join(sandboxPaths(ctx.t.services.store.dataDir).authelia, 'configuration.yml'), 'utf8');
  ctx.portal.ac = JSON.parse(config.replace(/^#.*$/gm, '')).access_control;
  ctx.portal.users = (await ctx.t.services.system.authPortal.readUsers()).map(({ username, groups }) => ({ username, groups }));
}

function get(ctx: Ctx, host: string, path = '/', user?: string, method = 'GET'): Promise<TestResponse> {
  return withTimeout(`${method} https://${host}${path}`, 10_000, () =>
    loopbackRequest({ port: ctx.https, host, path, method, tls: { ca: ctx.ca }, headers: user ? { Cookie: `${SESSION_COOKIE}=${user}` } : {} }));
}

s.before(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'relay-access-'));
  for (const d of ['logs', 'tmp', 'sites-enabled', 'certs']) await mkdir(join(ctx.dir, d));
  const [https, portalPort, panelPort, teamPort, openPort] = await freePorts(5);
  ctx.https = https!;
  ctx.servers = [];
  ctx.portal = { ac: { default_policy: 'two_factor', rules: [] }, users: [], starts: 0, asked: [] };

  ctx.t = await createTestApp();
  await ctx.t.completeOnboarding(DOMAIN);
  await seedPortalUsers(ctx.t, 'root', 'alice', 'bob');
  const { authPortal } = ctx.t.services.system;
  await authPortal.writeUsers((await authPortal.readUsers()).map((u) => ({ ...u, groups: u.username === 'root' ? ['admins'] : u.username === 'bob' ? ['dev'] : [] })));
  await authPortal.install({ domain: DOMAIN, users: await authPortal.readUsers() });
  const sandbox = sandboxControls(ctx.t.services.system);

  // the fake portal: configuration and users (re)read when the panel has restarted it since
  ctx.servers.push(await listen(portalPort!, async (req, res) => {
    const starts = sandbox.eventsOf('authPortal.restart').length + sandbox.eventsOf('authPortal.install').length;
    if (starts !== ctx.portal.starts) {
      await loadPortal(ctx);
      ctx.portal.starts = starts;
    }
    ctx.portal.asked.push(String(req.headers['x-original-url']));
    answerWithRules(req, res, ctx.portal.ac, ctx.portal.users, `https://auth.${DOMAIN}`);
  }));
  // the panel's refused page, through the app (the route is public: no certificate)
  ctx.servers.push(await listen(panelPort!, async (req, res) => {
    const answer = await ctx.t.fetch(`http://panel.test${req.url}`, { headers: { 'x-forwarded-host': String(req.headers['x-forwarded-host'] ?? '') } });
    res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' }).end(await answer.text());
  }));
  for (const [port, name] of [[teamPort!, 'team'], [openPort!, 'open']] as const) {
    ctx.servers.push(await listen(port, (req, res) => res.end(`${name} app: ${req.url} as ${req.headers['remote-user'] ?? 'nobody'}`)));
  }

  const team = await ctx.t.call('POST', '/api/tunnels', { body: { subdomain: 'team', port: teamPort, access: {
    mode: 'restricted', users: ['alice'], rules: [
      { policy: 'bypass', resources: ['^/hook$'], methods: ['POST'] },
      { policy: 'deny', resources: ['^/admin'], networks: ['127.0.0.0/8'] },
    ],
  } } });
  assert.is(team.status, 201, JSON.stringify(team.body));
  ctx.teamId = team.body.tunnel.id;
  const open = await ctx.t.call('POST', '/api/tunnels', { body: { subdomain: 'open', port: openPort, access: { mode: 'public' } } });
  assert.is(open.status, 201, JSON.stringify(open.body));

  const pairs = await certPairs(join(ctx.dir, 'certs'), { team: TEAM, open: OPEN });
  ctx.ca = (await readFile(pairs.team.fullchain, 'utf8')) + (await readFile(pairs.open.fullchain, 'utf8'));
  const template: TemplateContext = {
    ...SAMPLE_TEMPLATE_CONTEXT,
    ports: { ...SAMPLE_TEMPLATE_CONTEXT.ports, https: ctx.https, authPortal: portalPort!, panel: panelPort! },
    helpDir: join(ctx.dir, 'help'),
    certFor: (fqdn) => (fqdn === TEAM ? pairs.team : pairs.open),
  };
  // the vhosts as the desired host state has them (lib/host-state/desired.ts), rendered by the templates
  for (const record of ctx.t.services.store.tunnels.value) {
    await writeFile(join(ctx.dir, 'sites-enabled', `${record.subdomain}.conf`), renderVhost(desiredTunnel(record).spec, template));
  }
  await writeFile(join(ctx.dir, 'nginx.conf'), nginxConf);
  ctx.nginx = startProcess('nginx', NGINX, ['-p', ctx.dir, '-c', 'nginx.conf', '-e', 'logs/error.log', '-g', 'daemon off;'], join(ctx.dir, 'nginx.out'));
  await waitFor('nginx', async () => (await get(ctx, OPEN).catch(() => null))?.status === 200, ctx.nginx);
});

s.after(async (ctx) => {
  if (ctx.nginx) await stopProcess(ctx.nginx);
  for (const server of ctx.servers ?? []) await new Promise((r) => server.close(r));
  await ctx.t?.close();
  if (ctx.dir) await rm(ctx.dir, { recursive: true, force: true });
});

s('the allowed user is let in, with the portal\'s Remote-User', async (ctx) => {
  const r = await get(ctx, TEAM, '/', 'alice');
  assert.equal([r.status, r.body], [200, 'team app: / as alice']);
});

s('another signed-in user is refused with the page naming the app and whom to ask', async (ctx) => {
  const r = await get(ctx, TEAM, '/', 'bob');
  assert.is(r.status, 403);
  assert.match(r.body, /No access to team/);
  assert.match(r.body, /mailto:root@example\.test/);
});

s('nobody signed in is sent to sign in', async (ctx) => {
  const r = await get(ctx, TEAM, '/');
  assert.is(r.status, 302);
  assert.match(String(r.headers.location), /^https:\/\/auth\.example\.test\/\?rd=/);
});

s('a bypassed path and method get through without a session; the same path by GET does not', async (ctx) => {
  const hook = await get(ctx, TEAM, '/hook', undefined, 'POST');
  assert.equal([hook.status, hook.body], [200, 'team app: /hook as nobody']);
  assert.is((await get(ctx, TEAM, '/hook')).status, 302);
});

s('a denied network is refused, even to the allowed user', async (ctx) => {
  const r = await get(ctx, TEAM, '/admin/settings', 'alice');
  assert.is(r.status, 403);
  assert.match(r.body, /No access to team/);
});

s('a public tunnel is reached with no session, and the portal is never asked about it', async (ctx) => {
  const r = await get(ctx, OPEN, '/anything');
  assert.equal([r.status, r.body], [200, 'open app: /anything as nobody']);
  assert.not.ok(ctx.portal.asked.some((url) => url.includes(OPEN)));
});

s('a revoked grant is refused on the next request after the API answers', async (ctx) => {
  assert.is((await get(ctx, TEAM, '/', 'alice')).status, 200);
  const put = await ctx.t.call('PUT', `/api/tunnels/${ctx.teamId}/access`, { body: { mode: 'restricted', users: [] } });
  assert.is(put.status, 200, JSON.stringify(put.body));
  const answered = performance.now();
  const next = await get(ctx, TEAM, '/', 'alice');
  const enforcedMs = performance.now() - answered;
  assert.is(next.status, 403, 'the very next request');
  console.log(`    revocation: API answer -> portal enforcing: ${enforcedMs.toFixed(1)} ms (the first request after the answer was refused)`);
});

s.run();
