// In a plain Node script (no test harness, no edge) app.fetch answers the
// runtime's own Response. A child node process is that script; the rest of the fetch core's
// checks are in test/unit/http/fetch-core.test.ts.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const s = suite('fetch core in a plain node script');

s('in a plain node script, app.fetch gives an instanceof Response', () => {
  const script = `
    import { mkdtempSync } from 'node:fs';
    import { tmpdir } from 'node:os';
    import { join } from 'node:path';
    import { routes } from './handlers/index.ts';
    import { ConfigStore } from './lib/config.ts';
    import { createApp } from './lib/http/app.ts';
    import { silentLogger } from './lib/log.ts';
    import { createRuntime } from './lib/runtime.ts';
    import { openStore } from './lib/state/store.ts';
    import { createSystem } from './lib/system/index.ts';
    const dir = mkdtempSync(join(tmpdir(), 'relay-plain-'));
    const config = await ConfigStore.create(join(dir, 'config.json'), {
      ip: '203.0.113.10', domain: null, email: null, dataDir: join(dir, 'data'), onboarding: { status: 'FRESH' }, system: { driver: 'sandbox' },
    });
    const store = await openStore(config.value.dataDir);
    const system = createSystem(config.value.system, { dataDir: store.dataDir });
    const app = createApp(createRuntime({ mode: 'production', config, store, system, log: silentLogger() }), routes);
    const response = await app.fetch(new Request('http://x/api/health'));
    console.log(JSON.stringify({ standard: response instanceof Response, body: await response.json() }));
    await app.close();
  `;
  const run = spawnSync(process.execPath, ['--import', join(root, 'test/helpers/register.mjs'), '--input-type=module', '-e', script], {
    cwd: root,
    encoding: 'utf8',
    timeout: 20_000,
  });
  assert.is(run.status, 0, run.stderr);
  assert.equal(JSON.parse(run.stdout.trim().split('\n').pop()!), { standard: true, body: { status: 'ok' } });
});

s.run();
