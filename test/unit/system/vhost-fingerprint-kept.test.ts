// The template fingerprint kept in the vhost stamps' file: a start of the same bundle on the same
// layout takes it from there instead of rendering the samples; another bundle, another layout or a
// run without a bundle's identity renders them, so a template change is still found and rewritten.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Fingerprinter } from '../../../lib/system/proxy/fingerprint.ts';
import { renderVhost } from '../../../lib/system/proxy/templates.ts';
import { VhostStore } from '../../../lib/system/proxy/vhost-store.ts';
import { VHOST_STAMPS_FILE, VhostStamps } from '../../../lib/system/proxy/vhost-stamps.ts';
import type { VhostSpec } from '../../../lib/system/types.ts';
import { SAMPLE_TEMPLATE_CONTEXT } from '../../helpers/template-context.ts';

interface Box {
  dir: string;
  /** the samples rendered (the fingerprint made) since the box was made */
  fingerprints: number;
}

const s = suite<{ box: Box }>('the template fingerprint kept across starts', {} as { box: Box });

s.before.each(async (ctx) => {
  ctx.box = { dir: await mkdtemp(join(tmpdir(), 'vhost-fingerprint-kept-')), fingerprints: 0 };
});
s.after.each(async ({ box }) => {
  await rm(box.dir, { recursive: true, force: true });
});

const specs: VhostSpec[] = [{ kind: 'ip-panel' }, ...Array.from({ length: 3 }, (_, i): VhostSpec => ({ kind: 'app', fqdn: `t${i}.example.test`, port: 20000 + i }))];
const names = ['relay-ip-panel.conf', 'relay-app-t0.example.test.conf', 'relay-app-t1.example.test.conf', 'relay-app-t2.example.test.conf'];

/**
 * One process's proxy: `code` the bundle's identity (null: the TypeScript sources), `layout` the
 * samples' inputs, `edition` a line this code's templates add, so two bundles can render differently.
 */
function start(box: Box, { code = 'code-1' as string | null, layout = 'layout-1', edition = '' } = {}): VhostStore {
  const fingerprinter: Fingerprinter = {
    inputs: () => layout,
    render: () => {
      box.fingerprints++;
      return `fingerprint of ${edition || 'the first templates'} on ${layout}`;
    },
  };
  return new VhostStore({
    availableDir: join(box.dir, 'available'),
    enabledDir: join(box.dir, 'enabled'),
    routesDir: join(box.dir, 'routes'),
    render: async (spec) => `${edition}${renderVhost(spec, SAMPLE_TEMPLATE_CONTEXT)}`,
    test: async () => undefined,
    reload: async () => undefined,
    stamps: new VhostStamps(join(box.dir, VHOST_STAMPS_FILE), fingerprinter, code),
  });
}

async function written(box: Box, options: Parameters<typeof start>[1] = {}): Promise<void> {
  await start(box, options).apply(specs.map((spec) => ({ op: 'put', spec, enabled: true })));
  box.fingerprints = 0;
}

s('the same bundle on the same layout: the next start takes the fingerprint from the file and renders no sample', async ({ box }) => {
  await written(box);
  assert.equal(await start(box).refresh(specs), []);
  assert.is(box.fingerprints, 0);
  const file = JSON.parse(await readFile(join(box.dir, VHOST_STAMPS_FILE), 'utf8'));
  assert.equal(file.templates, { code: 'code-1', inputs: 'layout-1', fingerprint: 'fingerprint of the first templates on layout-1' });
  assert.equal(Object.keys(file.vhosts).sort(), [...names].sort());
});

s('a start that took the kept fingerprint and then writes a vhost keeps it in the file: the start after renders no sample either', async ({ box }) => {
  await written(box);
  const second = start(box);
  assert.equal(await second.refresh(specs), []);
  await second.apply([{ op: 'put', spec: { kind: 'app', fqdn: 't9.example.test', port: 20009 }, enabled: true }]);
  const file = JSON.parse(await readFile(join(box.dir, VHOST_STAMPS_FILE), 'utf8'));
  assert.equal(file.templates?.fingerprint, 'fingerprint of the first templates on layout-1');
  assert.equal(await start(box).refresh(specs), []);
  assert.is(box.fingerprints, 0);
});

s('another bundle renders the samples; when its templates make other text every vhost is rewritten, and its next start renders none', async ({ box }) => {
  await written(box);
  const upgraded = { code: 'code-2', edition: '# the second templates\n' };
  assert.equal(await start(box, upgraded).refresh(specs), names);
  assert.is(box.fingerprints, 1);
  assert.match(await readFile(join(box.dir, 'available', names[1]!), 'utf8'), /^# the second templates\n/);
  box.fingerprints = 0;
  assert.equal(await start(box, upgraded).refresh(specs), []);
  assert.is(box.fingerprints, 0);
});

s('another bundle whose templates make the same text renders the samples once and rewrites nothing', async ({ box }) => {
  await written(box);
  assert.equal(await start(box, { code: 'code-2' }).refresh(specs), []);
  assert.is(box.fingerprints, 1);
});

s('another layout (the same bundle) renders the samples again', async ({ box }) => {
  await written(box);
  await start(box, { layout: 'layout-2' }).refresh(specs);
  assert.is(box.fingerprints, 1);
  const file = JSON.parse(await readFile(join(box.dir, VHOST_STAMPS_FILE), 'utf8'));
  assert.is(file.templates.inputs, 'layout-2');
});

s('without a bundle\'s identity (the TypeScript sources) nothing is kept: every start renders the samples', async ({ box }) => {
  await written(box, { code: null });
  await start(box, { code: null }).refresh(specs);
  await start(box, { code: null }).refresh(specs);
  assert.is(box.fingerprints, 2);
  assert.is(JSON.parse(await readFile(join(box.dir, VHOST_STAMPS_FILE), 'utf8')).templates, undefined);
});

s('a fingerprint kept by another bundle is not taken, even for the same layout', async ({ box }) => {
  await written(box);
  const path = join(box.dir, VHOST_STAMPS_FILE);
  const file = JSON.parse(await readFile(path, 'utf8'));
  await writeFile(path, JSON.stringify({ ...file, templates: { ...file.templates, code: 'code-0' } }));
  await start(box).refresh(specs);
  assert.is(box.fingerprints, 1);
});

s('an earlier release\'s file (the stamps by name alone) is still read as stamps: nothing is rewritten', async ({ box }) => {
  await written(box);
  const path = join(box.dir, VHOST_STAMPS_FILE);
  await writeFile(path, JSON.stringify(JSON.parse(await readFile(path, 'utf8')).vhosts));
  assert.equal(await start(box).refresh(specs), []);
  assert.is(box.fingerprints, 1, 'made again, as the file kept none');
});

s.run();
