// `PORT=N npm start` on a fresh checkout: N is the port of that run only; the new sandbox keeps the
// default, so a later start without PORT does not inherit a random or one-off port.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SANDBOX_DIR, SANDBOX_PORT, start } from '../../../lib/main.ts';
import { timed } from '../../helpers/timeout.ts';

const s = suite('sandbox: PORT is the port of one run');

s('PORT=0 serves on a free port and leaves the default in the new sandbox configuration', timed(15_000, async () => {
  const cwd = await mkdtemp(join(tmpdir(), 'relay-sandbox-port-'));
  const running = await start({ argv: [], env: { NODE_ENV: 'development', LOG_LEVEL: 'error', PORT: '0' }, cwd });
  try {
    assert.is.not(Number(new URL(running.url).port), SANDBOX_PORT);
    const saved = JSON.parse(await readFile(join(cwd, SANDBOX_DIR, 'config.json'), 'utf8'));
    assert.is(saved.listen.port, SANDBOX_PORT);
  } finally {
    await running.stop();
    await rm(cwd, { recursive: true, force: true });
  }
}));

s.run();
