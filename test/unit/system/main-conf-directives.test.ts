// The default server's file and nginx's main configuration: the http context's settings the main
// file (or a file it includes) already gives are left out of the relay's file, which nginx would
// otherwise refuse as duplicate; commented lines and the relay's own vhosts do not count.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { httpContextSetInMainConf, statements } from '../../../lib/system/proxy/main-conf-directives.ts';
import { renderVhost } from '../../../lib/system/proxy/templates.ts';
import { SAMPLE_TEMPLATE_CONTEXT } from '../../helpers/template-context.ts';

const s = suite<{ dir: string }>('main configuration: the http context settings it gives', { dir: '' });
s.before(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'relay-main-conf-'));
});
s.after(async (ctx) => {
  if (ctx.dir) await rm(ctx.dir, { recursive: true, force: true });
});

const DEBIAN_HTTP = 'http {\n\tsendfile on;\n\t# server_names_hash_bucket_size 64;\n\tinclude /etc/nginx/conf.d/*.conf;\n';

/** A main configuration in its own directory, with files beside it (relative paths). */
async function box(root: string, name: string, files: Record<string, string>): Promise<string> {
  const dir = join(root, name);
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return join(dir, 'nginx.conf');
}

s('statements: comments, quotes and blocks', () => {
  assert.equal(statements('a 1; # b 2;\nhttp { c "x y" ; include \'z/*.conf\';}\n#d;'), [['a', '1'], ['http'], ['c', 'x y'], ['include', 'z/*.conf']]);
  assert.equal(statements('e "#not a comment";'), [['e', '#not a comment']]);
});

s('the default server writes both settings when the main configuration gives neither', async ({ dir }) => {
  const conf = await box(dir, 'neither', { 'nginx.conf': `${DEBIAN_HTTP}\tinclude sites-enabled/*;\n}\n`, 'sites-enabled/relay-default.conf': 'server_names_hash_bucket_size 512;' });
  const set = await httpContextSetInMainConf(conf);
  assert.equal([...set], [], 'the commented line and the relay\'s own file do not count');
  const text = renderVhost({ kind: 'default' }, { ...SAMPLE_TEMPLATE_CONTEXT, setInMainConf: set });
  assert.match(text, '\nserver_names_hash_bucket_size 512;\nmap_hash_bucket_size 512;\n');
  assert.is(text, renderVhost({ kind: 'default' }, SAMPLE_TEMPLATE_CONTEXT));
});

s('a setting of nginx.conf is left out, the other written', async ({ dir }) => {
  const conf = await box(dir, 'server-names', { 'nginx.conf': `${DEBIAN_HTTP}\tserver_names_hash_bucket_size 64;\n}\n` });
  const set = await httpContextSetInMainConf(conf);
  assert.equal([...set], [['server_names_hash_bucket_size', '64']]);
  const text = renderVhost({ kind: 'default' }, { ...SAMPLE_TEMPLATE_CONTEXT, setInMainConf: set });
  assert.not.match(text, /^server_names_hash_bucket_size/m);
  assert.match(text, "\n# server_names_hash_bucket_size 64: set by nginx's main configuration\nmap_hash_bucket_size 512;\n");
});

s('a setting in a file nginx.conf includes (relative glob, conf.d) counts too; in name order, the last wins', async ({ dir }) => {
  const conf = await box(dir, 'included', {
    'nginx.conf': 'events {}\nhttp {\n\tinclude conf.d/*.conf;\n\tinclude /nowhere/*.conf;\n}\n',
    'conf.d/a.conf': 'map_hash_bucket_size 128;\n',
    'conf.d/b.conf': 'map_hash_bucket_size "256";\n',
    'conf.d/c.conf.off': 'server_names_hash_bucket_size 64;\n',
    'conf.d/.hidden.conf': 'server_names_hash_bucket_size 64;\n',
  });
  assert.equal([...(await httpContextSetInMainConf(conf))], [['map_hash_bucket_size', '256']]);
});

s('an include loop ends; a missing main file sets nothing', async ({ dir }) => {
  const conf = await box(dir, 'loop', { 'nginx.conf': 'include nginx.conf;\nserver_names_hash_bucket_size 128;\n' });
  assert.equal([...(await httpContextSetInMainConf(conf))], [['server_names_hash_bucket_size', '128']]);
  assert.equal([...(await httpContextSetInMainConf(join(dir, 'absent.conf')))], []);
});

s('a quoted value with a line break is not repeated into the relay\'s file', () => {
  const text = renderVhost({ kind: 'default' }, { ...SAMPLE_TEMPLATE_CONTEXT, setInMainConf: new Map([['map_hash_bucket_size', '64\nload_module x']]) });
  assert.not.match(text, 'load_module');
  assert.match(text, "\n# map_hash_bucket_size: set by nginx's main configuration\n");
});

s.run();
