// What `npm start` shows on a laptop: the panel's own log and made-up lines for the other units.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { start } from '../../../lib/main.ts';
import { openLogViewer } from '../../helpers/service-logs.ts';
import { timed } from '../../helpers/timeout.ts';
import { writeOnboardedConfig } from '../../helpers/onboarded-config.ts';

const s = suite('service logs in the started sandbox');

s('the panel journal is the panel log; proxy shows made-up live lines', timed(15_000, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'relay-sandbox-logs-'));
  const config = await writeOnboardedConfig(dir, { domain: 'relay.example.test' });
  const running = await start({ argv: ['--config', config], env: { NODE_ENV: 'development', LOG_LEVEL: 'error' }, cwd: dir });
  try {
    const port = Number(new URL(running.url).port);
    const panel = await openLogViewer(port, 'panel');
    await panel.waitForLines(1);
    assert.match(panel.lines[0]!.message, /^INFO sandbox system in /);
    const proxy = await openLogViewer(port, 'proxy');
    await proxy.waitForLines(1);
    assert.match(proxy.lines[0]!.message, 'HTTP/1.1');
    panel.close();
    proxy.close();
  } finally {
    await running.stop();
    await rm(dir, { recursive: true, force: true });
  }
}));

s.run();
