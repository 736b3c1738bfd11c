// Long names through a REAL `nginx -t`: the templates' vhosts for names of 60 and 120 characters, a
// vhost per name and routes in the shared server's map, with the default server's file that sets
// the http context's hash buckets once (lib/system/proxy/http-context.ts); that file inside
// Debian's own nginx.conf as the package installs it, which must not set them a second time, and
// as admins edit it (either setting given there: the default server's file leaves it out); and
// the longest names the rules allow (a 253-character tunnel or site, the stack of a 246-character
// domain) written, tested, disabled, enabled and removed by the vhost store, as a box does.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { isFqdn } from '../../../../lib/system/common/names.ts';
import { OpensslPki } from '../../../../lib/system/pki/openssl-pki.ts';
import { isRouteSpec, isVhostName, renderVhost, vhostName, type TemplateContext } from '../../../../lib/system/proxy/templates.ts';
import { httpContextSetInMainConf } from '../../../../lib/system/proxy/main-conf-directives.ts';
import { VhostStore } from '../../../../lib/system/proxy/vhost-store.ts';
import type { CertPaths, VhostSpec } from '../../../../lib/system/types.ts';
import { certPairs } from '../../../helpers/cert-pairs.ts';
import { ownNginxConf } from '../../../helpers/own-nginx-conf.ts';
import { SAMPLE_TEMPLATE_CONTEXT } from '../../../helpers/template-context.ts';

const NGINX = '/usr/sbin/nginx';
const DEBIAN_CONF = '/etc/nginx/nginx.conf';

interface Ctx { dir: string; pair: CertPaths; mtls: { caPath: string; crlPath: string }; cases: number }
const s = suite<Ctx>('long names through nginx -t', { dir: '', pair: { fullchain: '', privkey: '' }, mtls: { caPath: '', crlPath: '' }, cases: 0 });

/** A valid name of exactly `length` characters ending in `.${base}`: labels of 63 at most. */
export function nameOfLength(length: number, base: string): string {
  const labels: string[] = [];
  // each label costs its characters and the dot after it
  let left = length - base.length;
  while (left > 0) {
    let take = Math.min(63, left - 1);
    // one character left over could not be a label and its dot
    if (left - take - 1 === 1) take -= 1;
    labels.push('n'.repeat(take));
    left -= take + 1;
  }
  const name = [...labels, base].join('.');
  if (name.length !== length || !isFqdn(name)) throw new Error(`no valid name of ${length} under ${base}: ${name}`);
  return name;
}

function run(args: string[]): Promise<{ ok: boolean; output: string }> {
  return new Promise((resolve) => {
    execFile(NGINX, args, { timeout: 60_000 }, (error, stdout, stderr) => resolve({ ok: error === null, output: `${stdout}${stderr}` }));
  });
}

function context(ctx: Ctx, dir: string): TemplateContext {
  return { ...SAMPLE_TEMPLATE_CONTEXT, acmeWebroot: join(dir, 'acme'), helpDir: join(dir, 'help'), routesDir: join(dir, 'routes'), certFor: () => ctx.pair, defaultCert: ctx.pair, mtls: ctx.mtls };
}

/** The vhosts as the store lays them out (routes in the routes directory), the default server's among them. */
async function writeVhosts(ctx: Ctx, dir: string, specs: VhostSpec[], setInMainConf?: Map<string, string>): Promise<void> {
  for (const d of ['logs', 'tmp', 'sites-enabled', 'routes']) await mkdir(join(dir, d), { recursive: true });
  const template = { ...context(ctx, dir), setInMainConf };
  for (const spec of [{ kind: 'default' } as VhostSpec, ...specs]) {
    await writeFile(join(dir, isRouteSpec(spec) ? 'routes' : 'sites-enabled', vhostName(spec)), renderVhost(spec, template));
  }
}

/** `nginx -t` of the vhosts under a test's own main configuration. */
async function nginxTest(ctx: Ctx, specs: VhostSpec[]): Promise<{ ok: boolean; output: string }> {
  const dir = join(ctx.dir, `case-${++ctx.cases}`);
  await writeVhosts(ctx, dir, specs);
  await writeFile(join(dir, 'nginx.conf'), ownNginxConf());
  return run(['-t', '-p', dir, '-c', 'nginx.conf', '-e', 'logs/error.log']);
}

const readFileSyncText = (path: string) => readFileSync(path, 'utf8');
const app = (fqdn: string, port = 8080): VhostSpec => ({ kind: 'app', fqdn, port });
const route = (fqdn: string, port = 8080): VhostSpec => ({ kind: 'app', fqdn, port, shared: true });
const site = (fqdn: string): VhostSpec => ({ kind: 'site', fqdn, root: '/srv/relay-sites/one', spaMode: false, protected: true });

s.before(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'relay-long-names-'));
  ctx.pair = (await certPairs(join(ctx.dir, 'certs'), { one: 'long.test' })).one;
  // the panel's vhost verifies client certificates against a CA and its CRL
  ctx.mtls = await new OpensslPki({ openssl: '/usr/bin/openssl', dir: join(ctx.dir, 'pki'), caCommonName: 'long names CA', clientCertDays: 2, timeoutMs: 20_000 }).ensureCa();
});
s.after(async (ctx) => {
  if (ctx.dir) await rm(ctx.dir, { recursive: true, force: true });
});

s('names of 60 and 120 characters, a vhost per name: apps and sites', async (ctx) => {
  const specs = [60, 120].flatMap((length) => [app(nameOfLength(length, 'example.test')), site(nameOfLength(length, 'sites.test'))]);
  const outcome = await nginxTest(ctx, specs);
  assert.ok(outcome.ok, outcome.output);
});

s('names of 60 and 120 characters in the shared server\'s map', async (ctx) => {
  const specs = [{ kind: 'tunnels', fqdn: 'wild.test' } as VhostSpec, route(nameOfLength(60, 'wild.test'), 8081), route(nameOfLength(120, 'wild.test'), 8082)];
  const outcome = await nginxTest(ctx, specs);
  assert.ok(outcome.ok, outcome.output);
});

s('Debian\'s own nginx.conf with the default server\'s file: the buckets are set once, and its sites still load', async (ctx) => {
  if (!existsSync(DEBIAN_CONF)) return console.log(`    skipped: no ${DEBIAN_CONF}`);
  const dir = join(ctx.dir, 'debian');
  await writeVhosts(ctx, dir, [app(nameOfLength(120, 'example.test'))]);
  const debian = await readFile(DEBIAN_CONF, 'utf8');
  // its sites-enabled include points at this test's vhosts; everything else is the package's
  const conf = debian.replace(/include\s+\/etc\/nginx\/sites-enabled\/\*;/, `include ${join(dir, 'sites-enabled')}/*.conf;`);
  assert.is.not(conf, debian, 'nginx.conf includes /etc/nginx/sites-enabled/*');
  await writeFile(join(dir, 'nginx.conf'), conf);
  const outcome = await run(['-t', '-c', join(dir, 'nginx.conf')]);
  assert.ok(outcome.ok, outcome.output);
});

/** Debian's nginx.conf with its sites-enabled include pointing at `dir`'s vhosts, edited by `edit`. */
async function debianConf(dir: string, edit: (conf: string) => string): Promise<string> {
  const debian = await readFile(DEBIAN_CONF, 'utf8');
  const conf = edit(debian.replace(/include\s+\/etc\/nginx\/sites-enabled\/\*;/, `include ${join(dir, 'sites-enabled')}/*.conf;`));
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'nginx.conf'), conf);
  return join(dir, 'nginx.conf');
}

// the line admins uncomment in Debian's nginx.conf; and the other setting, added beside it
const UNCOMMENT = (conf: string) => conf.replace(/#\s*(server_names_hash_bucket_size\s+64;)/, '$1');
const MAP_TOO = (conf: string) => conf.replace(/(\n\s*)(sendfile on;)/, '$1$2$1map_hash_bucket_size 128;');

for (const [what, edit, directives] of [
  ['server_names_hash_bucket_size 64 uncommented', UNCOMMENT, [['server_names_hash_bucket_size', '64']]],
  ['map_hash_bucket_size 128 added', MAP_TOO, [['map_hash_bucket_size', '128']]],
  ['both', (c: string) => MAP_TOO(UNCOMMENT(c)), [['server_names_hash_bucket_size', '64'], ['map_hash_bucket_size', '128']]],
] as const) {
  s(`Debian's nginx.conf with ${what}: the default server leaves that out and nginx -t passes`, async (ctx) => {
    if (!existsSync(DEBIAN_CONF)) return console.log(`    skipped: no ${DEBIAN_CONF}`);
    const dir = join(ctx.dir, `operator-${++ctx.cases}`);
    const conf = await debianConf(dir, edit);
    assert.ok(directives.every(([name]) => new RegExp(`^\\s*${name}`, 'm').test(readFileSyncText(conf))), 'the test edited nginx.conf');
    // names nginx's default bucket holds: the operator's 64 is theirs to judge (doctor says so)
    const specs = [app('short.example.test'), { kind: 'tunnels', fqdn: 'wild.test' } as VhostSpec, route('one.wild.test', 8081)];
    await writeVhosts(ctx, dir, specs);
    const before = await run(['-t', '-c', conf]);
    assert.not.ok(before.ok, 'both settings written: nginx refuses the duplicate');
    assert.match(before.output, 'is duplicate');
    const set = await httpContextSetInMainConf(conf);
    assert.equal([...set].sort(), directives.map(([n, v]) => [n, v]).sort());
    await writeVhosts(ctx, dir, specs, set);
    const after = await run(['-t', '-c', conf]);
    assert.ok(after.ok, after.output);
  });
}

s('the longest names: a 253-character tunnel (its own vhost, or a route of the shared server), a site, and a 246-character domain\'s stack', async (ctx) => {
  const domain = nameOfLength(246, 'test');
  const dir = join(ctx.dir, 'longest');
  await writeVhosts(ctx, dir, []);
  await writeFile(join(dir, 'nginx.conf'), ownNginxConf());
  const template = context(ctx, dir);
  const store = new VhostStore({
    availableDir: join(dir, 'sites-available'),
    enabledDir: join(dir, 'sites-enabled'),
    routesDir: join(dir, 'routes'),
    render: async (spec) => renderVhost(spec, template),
    test: async () => {
      const outcome = await run(['-t', '-p', dir, '-c', 'nginx.conf', '-e', 'logs/error.log']);
      if (!outcome.ok) throw new Error(outcome.output);
    },
    reload: async () => undefined,
  });
  const longest = nameOfLength(253, domain);
  const specs: VhostSpec[] = [
    { kind: 'panel', fqdn: `panel.${domain}` }, { kind: 'auth-portal', fqdn: `auth.${domain}` }, { kind: 'tunnel-server', fqdn: `tunnel.${domain}` },
    { kind: 'tunnels', fqdn: domain },
    route(longest, 8081),
    app(nameOfLength(253, 'example.test'), 8082),
    site(nameOfLength(253, 'sites.test')),
  ];
  assert.is(`tunnel.${domain}`.length, 253);
  await store.apply(specs.map((spec) => ({ op: 'put', spec, enabled: true })));
  const names = specs.map(vhostName);
  for (const name of names) assert.ok(isVhostName(name), `${name} is a relay vhost's name`);
  assert.equal((await readdir(join(dir, 'sites-available'))).filter((name) => !name.startsWith('.')).sort(), [...names].sort());
  // by name, as a disabled tunnel, a deleted site and the reconcile of a box ask for them
  const [appName, siteName, routeName] = [vhostName(specs[5]!), vhostName(specs[6]!), vhostName(specs[4]!)];
  await store.apply([{ op: 'disable', name: appName }, { op: 'disable', name: routeName }]);
  assert.equal([(await store.state(appName)).enabled, (await store.state(routeName)).enabled], [false, false]);
  await store.apply([{ op: 'enable', name: appName }, { op: 'enable', name: routeName }, { op: 'remove', name: siteName }]);
  assert.equal((await store.list('app')).map(({ name, enabled }) => [name, enabled]).sort(), [[appName, true], [routeName, true]].sort());
  assert.is((await store.state(siteName)).written, false);
});

s.run();
