import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { withTimeout } from '../../../helpers/timeout.ts';

const run = promisify(execFile);
const repo = fileURLToPath(new URL('../../../../', import.meta.url));
const s = suite('fresh clone');

// What a newcomer does: clone what is committed, `npm install`, `npm start`. Only committed files
// take part, so a file missing from git (or a lost executable bit) shows up here.
s('a fresh clone of HEAD: npm install && npm start serves health 200 and gates /api/tunnels with FRESH', () =>
  withTimeout('fresh clone', 240_000, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'relay-clone-'));
    const clone = join(dir, 'relay-panel');
    let child: ReturnType<typeof spawn> | undefined;
    try {
      await run('git', ['clone', '--quiet', '--no-hardlinks', repo, clone]);
      await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: clone, maxBuffer: 16 * 1024 * 1024 });
      child = spawn('npm', ['start'], { cwd: clone, env: { ...process.env, PORT: '0', NODE_ENV: '' }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child!.stdout!.on('data', (c) => {
          out += c;
          const listening = out.match(/listening on (http:\/\/\S+)/)?.[1];
          if (listening) resolve(listening);
        });
        child!.on('exit', (code) => reject(new Error(`npm start exited ${code}: ${out}`)));
      });
      const health = await fetch(`${url}/api/health`);
      assert.is(health.status, 200);
      const tunnels = await fetch(`${url}/api/tunnels`);
      assert.is(tunnels.status, 503);
      assert.equal(await tunnels.json(), { error: 'Onboarding not complete', onboardingStatus: 'FRESH' });
    } finally {
      // npm runs the server as a grandchild: end the whole process group.
      if (child?.pid && child.exitCode === null && child.signalCode === null) {
        try {
          process.kill(-child.pid, 'SIGTERM');
        } catch {
          /* already gone */
        }
        await new Promise((ok) => child!.once('exit', ok).once('error', ok));
      }
      await rm(dir, { recursive: true, force: true });
    }
  }),
);

s.run();
