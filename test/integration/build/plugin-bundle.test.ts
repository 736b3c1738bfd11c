// The bundled server (dist/server.mjs and the bundle beside it) imports a plugin's ES module at run time, and
// mounts the enabled ones again when it restarts.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { installAndGreet, packFixtures } from '../../helpers/plugins.ts';
import { withTimeout } from '../../helpers/timeout.ts';
// @ts-expect-error plain JS build script
import { bundle } from '../../../build/build.mjs';

const s = suite('plugins in the bundle');

function startBundle(outfile: string, configFile: string, cwd: string): Promise<{ child: ChildProcess; url: string; exited: Promise<number | null> }> {
  return new Promise((resolve, reject) => {
    // development mode: every caller is admin, and any file: tarball may be installed
    const child = spawn(process.execPath, [outfile, '--config', configFile], { cwd, env: { ...process.env, NODE_ENV: 'development' }, stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((ok) => child.on('exit', (code) => ok(code)));
    let out = '';
    child.stdout!.on('data', (c) => {
      out += c;
      const match = out.match(/listening on (http:\/\/\S+)/);
      if (match) resolve({ child, url: match[1]!, exited });
    });
    child.on('exit', (code) => reject(new Error(`bundle exited ${code}: ${out}`)));
  });
}

s('install and enable through the bundled server; the plugin answers, and again after a restart', () =>
  withTimeout('plugin bundle', 120_000, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'relay-plugin-bundle-'));
    const packed = await packFixtures('hello');
    try {
      const outfile = join(dir, 'server.mjs');
      await bundle({ outfile, quiet: true });
      const configFile = join(dir, 'config.json');
      await writeFile(configFile, JSON.stringify({
        ip: '127.0.0.1', domain: 'example.test', email: 'ops@example.test', dataDir: join(dir, 'data'),
        onboarding: { status: 'COMPLETED' }, listen: { host: '127.0.0.1', port: 0 }, system: { driver: 'sandbox' },
      }));
      const first = await startBundle(outfile, configFile, dir);
      try {
        const hello = await installAndGreet(first.url, packed.specs.hello!);
        assert.is(hello.installed, 201, hello.installText);
        assert.is(hello.enabled, 200);
        assert.equal(hello.greeting, { hello: 'world', role: 'admin', calls: 1 });
      } finally {
        first.child.kill('SIGTERM');
      }
      assert.is(await first.exited, 0);
      const second = await startBundle(outfile, configFile, dir);
      try {
        assert.equal(await (await fetch(`${second.url}/api/hello/greet`)).json(), { hello: 'world', role: 'admin', calls: 1 });
        assert.match(await (await fetch(`${second.url}/api/hello/panel.js`)).text(), /Hello from the hello plugin/);
      } finally {
        second.child.kill('SIGTERM');
      }
      await second.exited;
    } finally {
      await rm(dir, { recursive: true, force: true });
      await rm(packed.dir, { recursive: true, force: true });
    }
  }),
);

s.run();
