// The bundled server (dist/server.mjs and the bundle beside it) imports a plugin's ES module at run time, and
// mounts the enabled ones again when it restarts.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { installAndGreet, packFixtures } from '../../helpers/plugins.ts';
import { withTimeout } from '../../helpers/timeout.ts';
import { startBundle, stopServer } from '../../helpers/listening-server.ts';
import { writeOnboardedConfig } from '../../helpers/onboarded-config.ts';
// @ts-expect-error plain JS build script
import { bundle } from '../../../build/build.mjs';

const s = suite('plugins in the bundle');

s('install and enable through the bundled server; the plugin answers, and again after a restart', () =>
  withTimeout('plugin bundle', 120_000, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'relay-plugin-bundle-'));
    const packed = await packFixtures('hello');
    try {
      const outfile = join(dir, 'server.mjs');
      await bundle({ outfile, quiet: true });
      const configFile = await writeOnboardedConfig(dir, { ip: '127.0.0.1', system: { driver: 'sandbox' } });
      // development mode: every caller is admin, and any file: tarball may be installed
      const development = { NODE_ENV: 'development' };
      const first = await startBundle(outfile, ['--config', configFile], development, dir);
      try {
        const hello = await installAndGreet(first.url, packed.specs.hello!);
        assert.is(hello.installed, 201, hello.installText);
        assert.is(hello.enabled, 200);
        assert.equal(hello.greeting, { hello: 'world', role: 'admin', calls: 1 });
      } finally {
        first.child.kill('SIGTERM');
      }
      assert.is((await first.exited).code, 0, first.output());
      const second = await startBundle(outfile, ['--config', configFile], development, dir);
      try {
        assert.equal(await (await fetch(`${second.url}/api/hello/greet`)).json(), { hello: 'world', role: 'admin', calls: 1 });
        assert.match(await (await fetch(`${second.url}/api/hello/panel.js`)).text(), /Hello from the hello plugin/);
      } finally {
        await stopServer(second);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
      await rm(packed.dir, { recursive: true, force: true });
    }
  }),
);

s.run();
