// doctor on an installed box (the harness's real nginx on 0.0.0.0, the fake systemd and its
// journal): a service systemd restarts in a loop is a problem although it is active, and each
// port's line names the addresses the kernel lists for it, a listener off nginx.listenAddress a
// problem whose fix works.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { restartJournalArgs } from '../../../lib/install/unit-restarts.ts';
import { withTimeout } from '../../helpers/timeout.ts';
import { freePorts } from '../../infra/ports.ts';
import { install, relay, startInstalledBox, type InstalledBox, type Run } from './installed-box.ts';

let box: InstalledBox;
const s = suite('doctor tells the truth (fake systemd, real nginx)');

const doctor = (): Promise<Run> => relay(box, join(box.releaseDir, 'server.mjs'), ['doctor']);
const lines = (run: Run, check: string) => run.events.filter((e) => e.step === check).map((e) => ({ status: e.status, message: e.message, fix: e.fix }));

/** Runs `body` with a file rewritten by `change`, then puts the file back. */
async function withFile<T>(file: string, change: (json: Record<string, any>) => void, body: () => Promise<T>): Promise<T> {
  const original = await readFile(file, 'utf8');
  const json = JSON.parse(original);
  change(json);
  await writeFile(file, JSON.stringify(json));
  try {
    return await body();
  } finally {
    await writeFile(file, original);
  }
}

s.before(async () => {
  // nginx on every address, as on a real box (nginx.listenAddress's default); port 80 of its own:
  // the harness's nginx holds its http port on 127.0.0.1, where nginx cannot bind 0.0.0.0 beside it
  const [http] = await freePorts(1);
  box = await startInstalledBox({ nginx: { listenAddress: '0.0.0.0' }, ports: { http: http! } });
  box.env.FAKE_ARGV_LOG = join(box.dir, 'argv.log');
  const run = await install(box);
  assert.is(run.code, 0, `${run.stderr}\n${JSON.stringify(run.events.filter((e) => e.status === 'failed'))}`);
});
s.after(async () => {
  await box?.close();
});

s('chisel active but restarted 34 times in 10 minutes: a problem, with where to look; the journal is asked for systemd\'s own entries; without it, NRestarts', () =>
  withTimeout('restart loop', 90_000, async () => {
    const configFile = join(box.prefix, 'etc/relay-panel/config.json');
    const stateFile = box.env.FAKE_SYSTEMD_STATE!;
    const now = Date.now();
    // started by hand 20 minutes ago; 5 restarts 15 minutes ago, 34 in the last 9
    const restarts = [...Array.from({ length: 5 }, (_, i) => now - 15 * 60_000 + i * 1000), ...Array.from({ length: 34 }, (_, i) => now - 9 * 60_000 + i * 10_000)];
    // chisel and Authelia are looked at once onboarding completed
    await withFile(configFile, (c) => (c.onboarding.status = 'COMPLETED'), () =>
      withFile(stateFile, (units) => {
        units['chisel.service'] = { state: 'active', since: now - 20 * 60_000, restarts };
        units['authelia.service'] = { state: 'active', since: now - 60_000 };
      }, async () => {
        const run = await doctor();
        assert.is(run.code, 1);
        assert.equal(run.events.filter((e) => e.status === 'failed').map((e) => e.step), ['units'], JSON.stringify(run.events.filter((e) => e.status === 'failed')));
        assert.equal(lines(run, 'units'), [
          { status: 'done', message: 'nginx is active', fix: undefined },
          { status: 'done', message: 'relay-panel.socket is active', fix: undefined },
          { status: 'done', message: 'relay-panel is active', fix: undefined },
          { status: 'done', message: 'relay-panel-root.socket is active', fix: undefined },
          { status: 'failed', message: 'chisel is active, but systemd restarted it 34 times in the last 10 minutes', fix: 'journalctl -u chisel -n 50 shows why' },
          { status: 'done', message: 'authelia is active', fix: undefined },
        ]);
        const calls = (await readFile(box.env.FAKE_ARGV_LOG!, 'utf8')).split('\n').filter(Boolean).map((l) => JSON.parse(l) as { prog: string; argv: string[] });
        assert.ok(calls.some((c) => c.prog === 'journalctl' && JSON.stringify(c.argv) === JSON.stringify(restartJournalArgs('chisel.service'))), 'journalctl asked for PID 1\'s restart entries of chisel.service');

        // a journal that cannot be read: systemd's NRestarts, which counts since the start by hand, and the message says so
        const missing = join(box.dir, 'no-journalctl');
        await withFile(box.systemFile, (system) => (system.binaries.journalctl = missing), async () => {
          const chisel = lines(await doctor(), 'units').find((l) => String(l.message).startsWith('chisel'))!;
          assert.is(chisel.status, 'failed');
          assert.is(chisel.message, `chisel is active, but systemd restarted it 39 times since it was last started by hand (NRestarts; the journal could not be read: no-journalctl is not installed (${missing}))`);
          assert.is(chisel.fix, 'journalctl -u chisel -n 50 shows why');
        });
      }));
    // and a chisel started by hand since: its restarts before that are history; 3 in 10 minutes are not a loop
    await withFile(configFile, (c) => (c.onboarding.status = 'COMPLETED'), () =>
      withFile(stateFile, (units) => {
        units['chisel.service'] = { state: 'active', since: now - 60_000, restarts: [...restarts.slice(0, 5), now - 50_000, now - 40_000, now - 30_000] };
        units['authelia.service'] = { state: 'active', since: now - 60_000 };
      }, async () => {
        const chisel = lines(await doctor(), 'units').find((l) => String(l.message).startsWith('chisel'))!;
        assert.equal(chisel, { status: 'done', message: 'chisel is active; systemd restarted it 3 times in the last 10 minutes', fix: undefined });
      }));
  }),
);

s('ports: nginx on 0.0.0.0 is printed as 0.0.0.0 (the issue\'s box); off nginx.listenAddress it is a problem, with a fix that works', () =>
  withTimeout('listen addresses', 90_000, async () => {
    const { panel, ipPanel, https } = box.infra.ports;
    const configFile = join(box.prefix, 'etc/relay-panel/config.json');
    const now = Date.now();
    // onboarding completed (https is looked at), chisel and Authelia running
    await withFile(configFile, (c) => (c.onboarding.status = 'COMPLETED'), () =>
      withFile(box.env.FAKE_SYSTEMD_STATE!, (units) => {
        for (const unit of ['chisel.service', 'authelia.service']) units[unit] = { state: 'active', since: now - 60_000 };
      }, async () => {
        const ok = await doctor();
        assert.is(ok.code, 0, JSON.stringify(ok.events.filter((e) => e.status !== 'done')));
        assert.equal(lines(ok, 'ports'), [
          { status: 'done', message: `panel listens on 127.0.0.1:${panel}`, fix: undefined },
          { status: 'done', message: `IP panel listens on 0.0.0.0:${ipPanel}`, fix: undefined },
          { status: 'done', message: `https listens on 0.0.0.0:${https}`, fix: undefined },
        ]);
        // doctor given another nginx.listenAddress than install: a probe of 127.0.0.1 would still have said "listens"
        await withFile(box.systemFile, (system) => (system.nginx.listenAddress = '127.0.0.1'), async () => {
          const off = await doctor();
          assert.is(off.code, 1);
          assert.equal(off.events.filter((e) => e.status === 'failed').map((e) => e.step), ['ports', 'ports']);
          const [, ip, tls] = lines(off, 'ports');
          assert.equal(ip, { status: 'failed', message: `IP panel listens on 0.0.0.0:${ipPanel}, not on 127.0.0.1:${ipPanel} as nginx.listenAddress says`,
            fix: `ss -ltnp 'sport = :${ipPanel}' names the program that holds the port; if it is nginx, its vhosts were written for another nginx.listenAddress than 127.0.0.1: give doctor the --system-config install was given` });
          assert.is(tls!.message, `https listens on 0.0.0.0:${https}, not on 127.0.0.1:${https} as nginx.listenAddress says`);
        });
        // the fix: doctor with the configuration install had
        assert.is((await doctor()).code, 0);
      }));
  }),
);

s.run();
