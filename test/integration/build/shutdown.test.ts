import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { routes } from '../../../handlers/index.ts';
import { json } from '../../../lib/http/responses.ts';
import { route } from '../../../lib/http/route.ts';
import { start } from '../../../lib/main.ts';
import { withTimeout } from '../../helpers/timeout.ts';
import { writeFreshConfig } from '../../helpers/onboarded-config.ts';

const s = suite('graceful shutdown');

s('stop() lets an in-flight request and its write finish, then refuses new connections', () =>
  withTimeout('shutdown', 10_000, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'relay-shutdown-'));
    let release!: () => void;
    const gate = new Promise<void>((ok) => (release = ok));
    let entered!: () => void;
    const inside = new Promise<void>((ok) => (entered = ok));
    const slow = route({
      method: 'POST',
      path: '/api/test/slow',
      access: { roles: ['admin'], gate: 'open' },
      async handle({ services }) {
        entered();
        await gate;
        await services.store.invitations.update((list) => {
          list.push({ id: 'late', username: 'u', email: 'u@example.test', displayname: 'u', groups: [], tokenHash: 'h', createdAt: 'now', expiresAt: 'later', used: false, acceptedAt: null });
        });
        return json({ ok: true });
      },
    });
    const config = await writeFreshConfig(dir);
    const running = await start({ argv: ['--config', config], env: { NODE_ENV: 'development', LOG_LEVEL: 'error' }, cwd: dir, routes: [...routes, slow] });
    try {
      const pending = fetch(`${running.url}/api/test/slow`, { method: 'POST' });
      await inside;
      const stopped = running.stop();
      let stopDone = false;
      void stopped.then(() => (stopDone = true));
      await new Promise((ok) => setTimeout(ok, 50));
      assert.not.ok(stopDone, 'stop waited for the in-flight request');
      release();
      const response = await pending;
      assert.is(response.status, 200);
      await stopped;
      const saved = JSON.parse(await (await import('node:fs/promises')).readFile(join(dir, 'data', 'invitations.json'), 'utf8'));
      assert.is(saved[0].id, 'late');
      let refused = false;
      await fetch(`${running.url}/api/health`).catch(() => (refused = true));
      assert.ok(refused);
    } finally {
      release();
      await running.stop();
      await rm(dir, { recursive: true, force: true });
    }
  }),
);

s.run();
