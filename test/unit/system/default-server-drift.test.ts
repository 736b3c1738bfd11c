// The default server and an nginx.conf edited after it was written: its stamp still looks current,
// yet a start must write it again (leaving out the operator's setting), or every nginx -t fails.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { defaultServerDrift } from '../../../lib/system/proxy/default-server-drift.ts';
import { httpContextSetInMainConf } from '../../../lib/system/proxy/main-conf-directives.ts';
import { renderVhost } from '../../../lib/system/proxy/templates.ts';
import { VhostStore } from '../../../lib/system/proxy/vhost-store.ts';
import { VHOST_STAMPS_FILE, VhostStamps } from '../../../lib/system/proxy/vhost-stamps.ts';
import type { VhostSpec } from '../../../lib/system/types.ts';
import { SAMPLE_TEMPLATE_CONTEXT } from '../../helpers/template-context.ts';

const s = suite<{ dir: string }>('default server against an edited nginx.conf', { dir: '' });
s.before.each(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'relay-default-drift-'));
});
s.after.each(async (ctx) => {
  if (ctx.dir) await rm(ctx.dir, { recursive: true, force: true });
});

const DEFAULT: VhostSpec = { kind: 'default' };
const APP: VhostSpec = { kind: 'app', fqdn: 'one.example.test', port: 8080 };

/** One start of the panel on a box with nginx.conf at `conf`: renders as the host does. */
function start(dir: string, conf: string, counts: { renders: number }): VhostStore {
  return new VhostStore({
    availableDir: join(dir, 'available'), enabledDir: join(dir, 'enabled'), routesDir: join(dir, 'routes'),
    render: async (spec) => {
      counts.renders++;
      const setInMainConf = spec.kind === 'default' ? await httpContextSetInMainConf(conf) : undefined;
      return renderVhost(spec, { ...SAMPLE_TEMPLATE_CONTEXT, setInMainConf });
    },
    test: async () => undefined,
    reload: async () => undefined,
    stamps: new VhostStamps(join(dir, VHOST_STAMPS_FILE), 'release-1'),
    drifted: defaultServerDrift(conf),
  });
}

s('an operator line added, then removed: the start after each rewrites the default server alone; otherwise nothing is rendered', async ({ dir }) => {
  const conf = join(dir, 'nginx.conf');
  await writeFile(conf, 'http {\n    # server_names_hash_bucket_size 64;\n}\n');
  const counts = { renders: 0 };
  await start(dir, conf, counts).apply([DEFAULT, APP].map((spec) => ({ op: 'put', spec, enabled: true })));
  const file = join(dir, 'available', 'relay-default.conf');
  assert.match(await readFile(file, 'utf8'), '\nserver_names_hash_bucket_size 512;\n');
  counts.renders = 0;
  assert.equal(await start(dir, conf, counts).refresh([DEFAULT, APP]), []);
  assert.is(counts.renders, 0, 'nothing changed: nothing rendered');

  await writeFile(conf, 'http {\n    server_names_hash_bucket_size 64;\n}\n');
  assert.equal(await start(dir, conf, counts).refresh([DEFAULT, APP]), ['relay-default.conf']);
  assert.not.match(await readFile(file, 'utf8'), /^server_names_hash_bucket_size/m);
  counts.renders = 0;
  assert.equal(await start(dir, conf, counts).refresh([DEFAULT, APP]), []);
  assert.is(counts.renders, 0);

  await writeFile(conf, 'http {\n}\n');
  assert.equal(await start(dir, conf, counts).refresh([DEFAULT, APP]), ['relay-default.conf']);
  assert.match(await readFile(file, 'utf8'), '\nserver_names_hash_bucket_size 512;\nmap_hash_bucket_size 512;\n');
});

s('only the default server drifts; an unwritten one does not', async ({ dir }) => {
  const drift = defaultServerDrift(join(dir, 'absent.conf'));
  await writeFile(join(dir, 'app.conf'), 'anything');
  assert.is(await drift(APP, join(dir, 'app.conf')), false);
  assert.is(await drift(DEFAULT, join(dir, 'relay-default.conf')), false);
});

s.run();
