// Attack: clickjacking. Another site frames the panel (the browser presents the admin certificate
// inside the frame too) under a decoy and gets the admin to click its buttons; or an invitation
// page's token leaks in the Referer of a link followed from it.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createTestApp } from '../../../lib/testing.ts';

const s = suite('security: the panel pages cannot be framed and leak no referrer');

function assertGuarded(response: Response, path: string): void {
  assert.is(response.headers.get('x-frame-options'), 'DENY', path);
  assert.is(response.headers.get('content-security-policy'), "frame-ancestors 'none'", path);
  assert.is(response.headers.get('referrer-policy'), 'no-referrer', path);
  assert.is(response.headers.get('x-content-type-options'), 'nosniff', path);
}

s('the built-in entry document and the installed client, on every client path', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'relay-framing-'));
  await writeFile(join(dir, 'index.html'), '<html>client</html>');
  await writeFile(join(dir, 'app-3F9A1B2C.js'), 'console.log(1)');
  const bare = await createTestApp();
  const installed = await createTestApp({ config: { staticDir: dir } });
  try {
    for (const path of ['/', '/invite/0123abcd', '/tunnels']) {
      assertGuarded(await bare.request('GET', path, { as: 'none' }), `built-in ${path}`);
      const page = await installed.request('GET', path, { as: 'none' });
      assert.is(await page.text(), '<html>client</html>');
      assertGuarded(page, path);
    }
    assertGuarded(await installed.request('GET', '/app-3F9A1B2C.js', { as: 'none' }), 'an asset');
  } finally {
    await bare.close();
    await installed.close();
    await rm(dir, { recursive: true, force: true });
  }
});

s.run();
