// Attack: development mode makes every caller admin, and NODE_ENV left unset means development. A
// box driving the real host (nginx in front) started by hand without NODE_ENV=production would let
// any certificate nginx accepts (every agent's) act as admin.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { start } from '../../../lib/main.ts';
import { writeFreshConfig } from '../../helpers/onboarded-config.ts';

const s = suite('security: development mode never by accident on a real host');

s('the host driver with NODE_ENV unset does not start, and writes no data', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'relay-devmode-'));
  try {
    const config = await writeFreshConfig(dir, { ip: '203.0.113.10', system: { driver: 'host' } });
    for (const NODE_ENV of [undefined, '']) {
      const env = { LOG_LEVEL: 'error', ...(NODE_ENV === undefined ? {} : { NODE_ENV }) };
      let refusal: unknown;
      const running = await start({ argv: ['--config', config], env, cwd: dir }).catch((error: unknown) => void (refusal = error));
      await running?.stop();
      assert.ok(refusal instanceof Error, `started with NODE_ENV ${JSON.stringify(NODE_ENV)}`);
      assert.match(refusal.message, 'NODE_ENV=production');
    }
    assert.not.ok(existsSync(join(dir, 'data')));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

s('NODE_ENV other than development or unset (staging, Production, a typo) checks certificates; development and unset do not', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'relay-devmode-'));
  try {
    const config = await writeFreshConfig(dir, { ip: '127.0.0.1', system: { driver: 'sandbox' } });
    for (const [NODE_ENV, status] of [['staging', 403], ['Production', 403], ['prodution', 403], ['production', 403], ['development', 200], ['', 200], [undefined, 200]] as const) {
      const env = { LOG_LEVEL: 'error', ...(NODE_ENV === undefined ? {} : { NODE_ENV }) };
      const running = await start({ argv: ['--config', config], env, cwd: dir });
      try {
        // no certificate headers: what a caller that skipped the proxy sends
        const answer = await fetch(`${running.url}/api/onboarding/status`);
        assert.is(answer.status, status, `NODE_ENV ${JSON.stringify(NODE_ENV)}`);
        if (status === 403) assert.equal(await answer.json(), { error: 'mTLS certificate required' });
      } finally {
        await running.stop();
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

s.run();
