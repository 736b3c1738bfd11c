// The name the portal checks is the name nginx serves, through a REAL nginx (its own prefix, free
// loopback ports) and a FAKE portal deciding by X-Original-URL as Authelia 4.38's auth-request
// endpoint does (test/helpers/fake-authelia-rules.ts). A request line in absolute form names the
// host nginx serves ($host, RFC 9112 3.2.2) whatever the Host header and the SNI say: alice, allowed
// on `a` only, sends `GET https://b.../` with `Host: a...` over a connection to `a`. The vhosts are
// the templates' own, in both certificate modes (a vhost per name; the shared server of a
// wildcard's tunnels), the protected sites', the port-80 redirects' and the panel's.
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { OpensslPki } from '../../../../lib/system/pki/openssl-pki.ts';
import { renderHelpPage, renderVhost, HELP_PAGE_NAME, type TemplateContext } from '../../../../lib/system/proxy/templates.ts';
import type { VhostSpec } from '../../../../lib/system/types.ts';
import { certPairs } from '../../../helpers/cert-pairs.ts';
import { answerWithRules, SESSION_COOKIE, type FakeAccessControl } from '../../../helpers/fake-authelia-rules.ts';
import { ownNginxConf } from '../../../helpers/own-nginx-conf.ts';
import { rawExchange, rawHead } from '../../../helpers/raw-http.ts';
import { rawTlsExchange } from '../../../helpers/raw-tls.ts';
import { SAMPLE_TEMPLATE_CONTEXT } from '../../../helpers/template-context.ts';
import { freePorts } from '../../../infra/ports.ts';
import { startProcess, stopProcess, waitFor, type Managed } from '../../../infra/processes.ts';

const NGINX = '/usr/sbin/nginx';
/** a vhost per name */
const A = 'a.example.test';
const B = 'b.example.test';
const SITE_A = 'docs-a.example.test';
const SITE_B = 'docs-b.example.test';
const PANEL = 'panel.example.test';
/** the shared server of the wildcard's tunnels */
const WILD = 'wild.test';
const WILD_A = `a.${WILD}`;
const WILD_B = `b.${WILD}`;

const ACCESS: FakeAccessControl = {
  default_policy: 'deny',
  rules: [
    { domain: [A, WILD_A, SITE_A], policy: 'two_factor', subject: ['user:alice'] },
    { domain: [B, WILD_B, SITE_B], policy: 'two_factor', subject: ['user:bob'] },
  ],
};
const ALICE = `${SESSION_COOKIE}=alice`;

interface Ctx {
  dir: string; nginx: Managed | null; servers: Server[]; http: number; https: number;
  /** the X-Original-URL of every question the portal was asked */
  asked: string[];
  /** what each app saw: its name, then the path and X-Forwarded-Host */
  hits: string[];
  admin: { cert: string; key: string };
}
const s = suite<Ctx>('the name the portal checks is the name nginx serves', {} as Ctx);

function listen(port: number, handler: Parameters<typeof createServer>[1]): Promise<Server> {
  const server = createServer(handler!);
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

const target = (ctx: Ctx, host: string, path = '/') => `https://${host}:${ctx.https}${path}`;
const head = (requestTarget: string, host: string, cookie = ALICE) => rawHead('GET', requestTarget, [['Host', host], ['Cookie', cookie], ['Connection', 'close']]);

/** Over TLS to the https port: SNI `sni`, request line `requestTarget`, Host `host`, alice's session. */
function tlsAsk(ctx: Ctx, sni: string | null, requestTarget: string, host: string, clientCert?: { cert: string; key: string }) {
  return rawTlsExchange({ port: ctx.https, servername: sni, head: head(requestTarget, host), ...(clientCert ? { clientCert } : {}) });
}

s.before(async (ctx) => {
  // the sites' files are read by nginx's workers (nobody, when the test runs as root), so every
  // directory above them lets them through: the runner's temp dir is 0700
  ctx.dir = await mkdtemp(existsSync('/dev/shm') ? '/dev/shm/relay-host-check-' : join(tmpdir(), 'relay-host-check-'));
  await chmod(ctx.dir, 0o755);
  for (const d of ['logs', 'tmp', 'sites-enabled', 'routes', 'certs', 'help', 'site-a', 'site-b']) await mkdir(join(ctx.dir, d));
  const [http, https, portal, panel, appA, appB, wildA, wildB] = await freePorts(8);
  Object.assign(ctx, { http, https, servers: [], asked: [], hits: [] });

  ctx.servers.push(await listen(portal!, (req, res) => {
    ctx.asked.push(String(req.headers['x-original-url']));
    answerWithRules(req, res, ACCESS, [{ username: 'alice', groups: [] }, { username: 'bob', groups: [] }], `https://auth.example.test:${https}`);
  }));
  // the panel: the portal's refusal page, and its own routes behind the client certificate
  ctx.servers.push(await listen(panel!, (req, res) => {
    if (req.url === '/api/access/refused') res.statusCode = 403;
    if (req.url === '/api/access/refused') return void res.end(`refused on ${req.headers['x-forwarded-host']}`);
    res.end(`panel ${req.url}`);
  }));
  for (const [port, name] of [[appA!, A], [appB!, B], [wildA!, WILD_A], [wildB!, WILD_B]] as const) {
    ctx.servers.push(await listen(port, (req, res) => {
      ctx.hits.push(`${name} ${req.url} ${req.headers['x-forwarded-host']}`);
      res.end(`app ${name} as ${req.headers['remote-user'] ?? 'nobody'}`);
    }));
  }
  await writeFile(join(ctx.dir, 'site-a', 'index.html'), `site ${SITE_A}\n`);
  await writeFile(join(ctx.dir, 'site-b', 'index.html'), `site ${SITE_B}\n`);
  await writeFile(join(ctx.dir, 'help', HELP_PAGE_NAME), renderHelpPage());

  const pairs = await certPairs(join(ctx.dir, 'certs'), { a: A, b: B, siteA: SITE_A, siteB: SITE_B, panel: PANEL, wild: `*.${WILD}`, fallback: 'default.invalid' });
  const lineage: Record<string, keyof typeof pairs> = { [A]: 'a', [B]: 'b', [SITE_A]: 'siteA', [SITE_B]: 'siteB', [PANEL]: 'panel', [WILD]: 'wild' };
  const pki = new OpensslPki({ openssl: '/usr/bin/openssl', dir: join(ctx.dir, 'pki'), caCommonName: 'host check CA', clientCertDays: 2, timeoutMs: 20_000 });
  const mtls = await pki.ensureCa();
  const admin = await pki.issueClientCert('admin');
  ctx.admin = { cert: admin.certPem, key: admin.keyPem };
  const template: TemplateContext = {
    ...SAMPLE_TEMPLATE_CONTEXT,
    ports: { ...SAMPLE_TEMPLATE_CONTEXT.ports, http: http!, https: https!, authPortal: portal!, panel: panel! },
    acmeWebroot: join(ctx.dir, 'acme'),
    helpDir: join(ctx.dir, 'help'),
    mtls,
    defaultCert: pairs.fallback,
    routesDir: join(ctx.dir, 'routes'),
    certFor: (fqdn) => pairs[lineage[fqdn]!],
  };
  const vhosts: Array<[file: string, spec: VhostSpec]> = [
    ['default', { kind: 'default' }],
    ['a', { kind: 'app', fqdn: A, port: appA! }],
    ['b', { kind: 'app', fqdn: B, port: appB! }],
    ['site-a', { kind: 'site', fqdn: SITE_A, root: join(ctx.dir, 'site-a'), spaMode: false, protected: true }],
    ['site-b', { kind: 'site', fqdn: SITE_B, root: join(ctx.dir, 'site-b'), spaMode: false, protected: true }],
    ['panel', { kind: 'panel', fqdn: PANEL }],
    ['tunnels', { kind: 'tunnels', fqdn: WILD }],
  ];
  for (const [file, spec] of vhosts) await writeFile(join(ctx.dir, 'sites-enabled', `${file}.conf`), renderVhost(spec, template));
  for (const [fqdn, port] of [[WILD_A, wildA!], [WILD_B, wildB!]] as const) {
    await writeFile(join(ctx.dir, 'routes', `${fqdn}.conf`), renderVhost({ kind: 'app', fqdn, port, shared: true }, template));
  }
  await writeFile(join(ctx.dir, 'nginx.conf'), ownNginxConf());
  ctx.nginx = startProcess('nginx', NGINX, ['-p', ctx.dir, '-c', 'nginx.conf', '-e', 'logs/error.log', '-g', 'daemon off;'], join(ctx.dir, 'nginx.out'));
  await waitFor('nginx', async () => (await tlsAsk(ctx, A, '/', `${A}:${https}`).catch(() => null))?.status === 200, ctx.nginx);
  ctx.asked.length = 0;
  ctx.hits.length = 0;
});

s.after(async (ctx) => {
  if (ctx.nginx) await stopProcess(ctx.nginx);
  for (const server of ctx.servers ?? []) await new Promise((r) => server.close(r));
  if (ctx.dir) await rm(ctx.dir, { recursive: true, force: true });
});

s.before.each((ctx) => {
  ctx.asked.length = 0;
  ctx.hits.length = 0;
});

s('as a browser asks: alice reaches a, and is refused on b', async (ctx) => {
  const a = await tlsAsk(ctx, A, '/', `${A}:${ctx.https}`);
  assert.equal([a.status, a.body], [200, `app ${A} as alice`]);
  const b = await tlsAsk(ctx, B, '/', `${B}:${ctx.https}`);
  assert.equal([b.status, b.body], [403, `refused on ${B}`]);
  assert.equal(ctx.asked, [target(ctx, A), target(ctx, B)]);
});

s('a vhost per name: an absolute-form request for b sent to a is served by b, and judged as b', async (ctx) => {
  const r = await tlsAsk(ctx, A, target(ctx, B), `${A}:${ctx.https}`);
  assert.equal([r.status, r.body], [403, `refused on ${B}`]);
  assert.equal(ctx.asked, [target(ctx, B)], 'the portal was asked about the name nginx served');
  assert.equal(ctx.hits, [], 'b\'s app saw nothing');
});

s('the shared server of a wildcard\'s tunnels: the map\'s name and the checked name are one', async (ctx) => {
  const allowed = await tlsAsk(ctx, WILD_A, '/', `${WILD_A}:${ctx.https}`);
  assert.equal([allowed.status, allowed.body], [200, `app ${WILD_A} as alice`]);
  ctx.asked.length = 0;
  ctx.hits.length = 0;
  const r = await tlsAsk(ctx, WILD_A, target(ctx, WILD_B), `${WILD_A}:${ctx.https}`);
  assert.equal([r.status, r.body], [403, `refused on ${WILD_B}`]);
  assert.equal(ctx.asked, [target(ctx, WILD_B)]);
  assert.equal(ctx.hits, []);
});

s('a protected site: b\'s files are judged as b', async (ctx) => {
  const a = await tlsAsk(ctx, SITE_A, '/', `${SITE_A}:${ctx.https}`);
  assert.equal([a.status, a.body], [200, `site ${SITE_A}\n`]);
  ctx.asked.length = 0;
  const r = await tlsAsk(ctx, SITE_A, target(ctx, SITE_B), `${SITE_A}:${ctx.https}`);
  assert.equal([r.status, r.body], [403, `refused on ${SITE_B}`]);
  assert.equal(ctx.asked, [target(ctx, SITE_B)]);
});

s('the app is told the name it was reached by, as the portal was', async (ctx) => {
  const r = await tlsAsk(ctx, A, target(ctx, A, '/x'), `${B}:${ctx.https}`);
  assert.equal([r.status, r.body], [200, `app ${A} as alice`]);
  assert.equal(ctx.hits, [`${A} /x ${A}:${ctx.https}`]);
});

s('port 80 asks no portal and reaches no app: the redirect names the host nginx chose', async (ctx) => {
  for (const [asked, sent] of [[B, A], [WILD_B, WILD_A]] as const) {
    const r = await rawExchange(ctx.http, head(`http://${asked}/p?q=1`, sent));
    assert.equal([r.status, r.headers.location], [301, target(ctx, asked, '/p?q=1')], asked);
  }
  assert.equal([ctx.asked, ctx.hits], [[], []]);
});

s('the panel: its name on another\'s connection is refused with 421 by nginx itself; another name on its connection is that name\'s', async (ctx) => {
  const own = await tlsAsk(ctx, PANEL, '/x', `${PANEL}:${ctx.https}`, ctx.admin);
  assert.equal([own.status, own.body], [200, 'panel /x']);
  // nginx's 421 guards a server that verifies client certificates; a's server verifies none, and
  // serves a as a is served to anyone
  const other = await tlsAsk(ctx, PANEL, target(ctx, A), `${PANEL}:${ctx.https}`, ctx.admin);
  assert.equal([other.status, other.body], [200, `app ${A} as alice`], 'a\'s name on the panel\'s connection');
  assert.equal(ctx.asked, [target(ctx, A)]);
  ctx.asked.length = 0;
  ctx.hits.length = 0;
  const onA = await tlsAsk(ctx, A, target(ctx, PANEL, '/x'), `${A}:${ctx.https}`, ctx.admin);
  assert.is(onA.status, 421, 'the panel\'s name on a\'s connection');
  const hostOnly = await tlsAsk(ctx, A, '/x', `${PANEL}:${ctx.https}`, ctx.admin);
  assert.is(hostOnly.status, 421, 'the panel\'s name in Host on a\'s connection');
  // without SNI no certificate was asked for in the handshake: the panel's locations demand one
  const noSni = await tlsAsk(ctx, null, target(ctx, PANEL, '/x'), `${PANEL}:${ctx.https}`, ctx.admin);
  assert.is(noSni.status, 496);
  assert.equal([ctx.asked, ctx.hits], [[], []]);
});

s.run();
