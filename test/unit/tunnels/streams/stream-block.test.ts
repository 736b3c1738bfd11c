import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ensureStreamBlock, removeStreamBlock, STREAM_BLOCK_FILE } from '../../../../lib/install/stream-block.ts';
import { systemConfig } from '../../../../lib/system/config.ts';

const s = suite('install: the stream block beside the stream module');

s('written after the module is loaded, the streams directory root\'s; removed when the module is gone', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'relay-stream-block-'));
  try {
    const enabled = join(dir, 'modules-enabled');
    await mkdir(enabled);
    const system = systemConfig({ nginx: { conf: join(dir, 'nginx.conf'), sitesAvailable: join(dir, 'sites-available'), sitesEnabled: join(dir, 'sites-enabled') } });
    assert.equal(await ensureStreamBlock(system), { changed: true, loaded: false }, 'the directory made, no block without the module');
    await writeFile(join(enabled, '50-mod-stream.conf'), 'load_module modules/ngx_stream_module.so;\n');
    assert.equal(await ensureStreamBlock(system), { changed: true, loaded: true });
    assert.is(await readFile(join(enabled, STREAM_BLOCK_FILE), 'utf8'), `# written by relay-panel: the TCP and UDP tunnels' stream servers\nstream {\n    include ${join(dir, 'relay-streams')}/*.conf;\n}\n`);
    assert.is((await stat(join(dir, 'relay-streams'))).uid, 0);
    assert.equal(await ensureStreamBlock(system), { changed: false, loaded: true }, 'an upgrade with nothing to change');
    await writeFile(join(dir, 'relay-streams', 'relay-stream-tcp-22022.conf'), '');
    assert.is(await removeStreamBlock(system), 1, 'uninstall');
    assert.is(await stat(join(enabled, STREAM_BLOCK_FILE)).catch(() => null), null);
    assert.is(await stat(join(dir, 'relay-streams')).catch(() => null), null);
    assert.equal(await ensureStreamBlock(system), { changed: true, loaded: true }, 'a later install');
    await rm(join(enabled, '50-mod-stream.conf'));
    assert.equal(await ensureStreamBlock(system), { changed: false, loaded: false });
    assert.is(await stat(join(enabled, STREAM_BLOCK_FILE)).catch(() => null), null);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

s.run();
