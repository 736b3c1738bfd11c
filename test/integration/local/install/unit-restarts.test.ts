// doctor's `units` findings: systemd's restarts of a service counted from the journal (PID 1's
// "Scheduled restart job" entries of the last 10 minutes), NRestarts when the journal cannot be
// read, and a unit restarted more than 3 times reported as a problem although it is active.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { defaultRunner, type Installation, type Runner } from '../../../../lib/install/installation.ts';
import { recentRestarts, restartJournalArgs, serviceName, unitFinding, unitHealth } from '../../../../lib/install/unit-restarts.ts';
import { systemConfig } from '../../../../lib/system/config.ts';
import { countScheduledRestarts, parseNRestarts, RESTART_SCHEDULED } from '../../../../lib/system/systemd/restarts.ts';
import { SystemError } from '../../../../lib/system/types.ts';

const s = suite('doctor: restart loops');

const FAKES = fileURLToPath(new URL('../../../fakes/bin/', import.meta.url));

/** An entry as `journalctl -o json` prints systemd's restart of a service (every value a string). */
const entry = (unit: string, n: number, over: Record<string, unknown> = {}) => JSON.stringify({
  __REALTIME_TIMESTAMP: String(1_795_000_000_000_000 + n), _PID: '1', _UID: '0', _COMM: 'systemd', SYSLOG_IDENTIFIER: 'systemd', UNIT: unit,
  MESSAGE_ID: RESTART_SCHEDULED, MESSAGE: `${unit}: Scheduled restart job, restart counter is at ${n}.`, N_RESTARTS: String(n), ...over,
});

const inst = (run: Runner, binaries = {}) => ({ system: systemConfig({ driver: 'host', binaries }), run } as unknown as Installation);

s('the journal\'s lines: systemd\'s restarts of this service count; another unit, another message or a service posing as PID 1 do not', () => {
  const lines = [
    entry('chisel.service', 1), entry('chisel.service', 2), entry('chisel.service', 3),
    entry('authelia.service', 1),
    entry('chisel.service', 4, { MESSAGE_ID: '39f53479d3a045ac8e11786248231fbf', MESSAGE: 'Started chisel.service.' }),
    // chisel can log MESSAGE_ID and UNIT of its own, never _PID=1 (the journal sets it)
    entry('chisel.service', 5, { _PID: '4242', _COMM: 'chisel' }),
    '-- No entries --', '{"broken', '',
  ].join('\n');
  assert.is(countScheduledRestarts(lines, 'chisel.service'), 3);
  assert.is(countScheduledRestarts(lines, 'authelia.service'), 1);
  assert.is(countScheduledRestarts('', 'chisel.service'), 0);
});

s('NRestarts: a number, or nothing for what is not one', () => {
  assert.is(parseNRestarts('34\n'), 34);
  assert.is(parseNRestarts('0\n'), 0);
  assert.is(parseNRestarts('\n'), null);
  assert.is(parseNRestarts('NRestarts=34\n'), null);
});

s('only services are counted, by their full name; the journal is asked with matches that name systemd itself', () => {
  assert.is(serviceName('chisel'), 'chisel.service');
  assert.is(serviceName('relay-panel.service'), 'relay-panel.service');
  assert.is(serviceName('relay-panel.socket'), null);
  assert.is(serviceName('relay-panel-renew.timer'), null);
  assert.equal(restartJournalArgs('chisel.service'),
    ['--since=-10min', '--output=json', '--no-pager', '--quiet', 'MESSAGE_ID=5eb03494b6584870a536b337290809b3', 'UNIT=chisel.service', '_PID=1']);
});

s('the journal first; when journalctl fails, NRestarts, and which one answered is kept', async () => {
  const calls: string[][] = [];
  const journal = (stdout: string): Runner => async (binary, args) => {
    calls.push([binary, ...args]);
    return { stdout, stderr: '', exitCode: 0 };
  };
  const lines = Array.from({ length: 34 }, (_, i) => entry('chisel.service', i + 1)).join('\n');
  assert.equal(await recentRestarts(inst(journal(lines)), 'chisel.service'), { count: 34, source: 'journal' });
  assert.equal(calls[0], ['/usr/bin/journalctl', ...restartJournalArgs('chisel.service')]);

  // a loop someone ended by starting the unit by hand (an upgrade's rollback) is over: NRestarts is the bound
  const ended: Runner = async (binary) => ({ stdout: binary.endsWith('journalctl') ? lines : '0\n', stderr: '', exitCode: 0 });
  assert.equal(await recentRestarts(inst(ended), 'chisel.service'), { count: 0, source: 'journal' });
  const going: Runner = async (binary) => ({ stdout: binary.endsWith('journalctl') ? lines : '40\n', stderr: '', exitCode: 0 });
  assert.equal(await recentRestarts(inst(going), 'chisel.service'), { count: 34, source: 'journal' });

  const failing: Runner = async (binary, args) => {
    calls.push([binary, ...args]);
    if (binary.endsWith('journalctl')) throw new SystemError('journalctl exited with status 1', 'journalctl', 'Failed to open journal: Input/output error\n');
    return { stdout: '39\n', stderr: '', exitCode: 0 };
  };
  calls.length = 0;
  assert.equal(await recentRestarts(inst(failing), 'chisel.service'), { count: 39, source: 'NRestarts', journal: 'Failed to open journal: Input/output error' });
  assert.equal(calls[1], ['/usr/bin/systemctl', 'show', '-p', 'NRestarts', '--value', 'chisel.service']);

  const nothing: Runner = async () => {
    throw new SystemError('spawn ENOENT', 'x', '');
  };
  assert.equal(await recentRestarts(inst(nothing), 'chisel.service'), { count: null, journal: 'spawn ENOENT', nRestarts: 'spawn ENOENT' });
});

s('more than 3 restarts is a problem even while active; the message says how many, in what time, and where to look', () => {
  assert.equal(unitFinding('chisel', 'active', { count: 34, source: 'journal' }),
    { ok: false, message: 'chisel is active, but systemd restarted it 34 times in the last 10 minutes', fix: 'journalctl -u chisel -n 50 shows why' });
  assert.not.ok(unitFinding('chisel', 'active', { count: 4, source: 'journal' }).ok, '4 is more than 3');
  assert.equal(unitFinding('chisel', 'active', { count: 3, source: 'journal' }),
    { ok: true, message: 'chisel is active; systemd restarted it 3 times in the last 10 minutes', fix: 'systemctl restart chisel; journalctl -u chisel -n 50' });
  assert.equal(unitFinding('chisel', 'active', { count: 0, source: 'journal' }).message, 'chisel is active');
  assert.equal(unitFinding('chisel', 'failed', { count: 12, source: 'journal' }).message, 'chisel is failed; systemd restarted it 12 times in the last 10 minutes');
  assert.equal(unitFinding('chisel', 'inactive', { count: 0, source: 'journal' }),
    { ok: false, message: 'chisel is inactive', fix: 'systemctl restart chisel; journalctl -u chisel -n 50' });
});

s('NRestarts counts since the last start by hand, and the message says so and why the journal was not used', () => {
  const f = unitFinding('chisel', 'active', { count: 39, source: 'NRestarts', journal: 'Failed to open journal: Input/output error' });
  assert.equal(f, { ok: false, message: 'chisel is active, but systemd restarted it 39 times since it was last started by hand (NRestarts; the journal could not be read: Failed to open journal: Input/output error)', fix: 'journalctl -u chisel -n 50 shows why' });
  assert.equal(unitFinding('chisel', 'active', { count: 0, source: 'NRestarts', journal: 'x' }).message, 'chisel is active; systemd restarted it 0 times since it was last started by hand (NRestarts; the journal could not be read: x)');
  const unknown = unitFinding('chisel', 'active', { count: null, journal: 'spawn ENOENT', nRestarts: 'spawn ENOENT' });
  assert.ok(unknown.ok);
  assert.is(unknown.message, 'chisel is active (how often systemd restarted it is unknown: journalctl: spawn ENOENT; systemctl show -p NRestarts: spawn ENOENT)');
  assert.equal(unitFinding('relay-panel.socket', 'active', null), { ok: true, message: 'relay-panel.socket is active', fix: 'systemctl restart relay-panel.socket; journalctl -u relay-panel.socket -n 50' });
});

s('against the fake journalctl and systemctl: "chisel restarted 34 times" in the last 10 minutes, 39 since its start by hand', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'relay-restarts-'));
  const saved = process.env.FAKE_SYSTEMD_STATE;
  try {
    const now = Date.now();
    const restarts = [...Array.from({ length: 5 }, (_, i) => now - 15 * 60_000 + i * 1000), ...Array.from({ length: 34 }, (_, i) => now - 9 * 60_000 + i * 10_000)];
    process.env.FAKE_SYSTEMD_STATE = join(dir, 'state.json');
    await writeFile(process.env.FAKE_SYSTEMD_STATE, JSON.stringify({
      'chisel.service': { state: 'active', since: now - 20 * 60_000, restarts },
      'authelia.service': { state: 'active', since: now - 60_000 },
      'relay-panel.socket': { state: 'active', since: now - 60_000 },
    }));
    const fakes = inst(defaultRunner, { journalctl: join(FAKES, 'journalctl'), systemctl: join(FAKES, 'systemctl') });
    assert.equal(await unitHealth(fakes, 'chisel'), { ok: false, message: 'chisel is active, but systemd restarted it 34 times in the last 10 minutes', fix: 'journalctl -u chisel -n 50 shows why' });
    assert.equal((await unitHealth(fakes, 'authelia')).message, 'authelia is active');
    assert.equal((await unitHealth(fakes, 'relay-panel.socket')).message, 'relay-panel.socket is active');
    // no journal to read: NRestarts, which counts the 5 older restarts too
    const noJournal = inst(defaultRunner, { journalctl: join(dir, 'no-journalctl'), systemctl: join(FAKES, 'systemctl') });
    const fallback = await unitHealth(noJournal, 'chisel');
    assert.not.ok(fallback.ok);
    assert.match(fallback.message, /^chisel is active, but systemd restarted it 39 times since it was last started by hand \(NRestarts; the journal could not be read: no-journalctl is not installed \(/);
  } finally {
    if (saved === undefined) delete process.env.FAKE_SYSTEMD_STATE;
    else process.env.FAKE_SYSTEMD_STATE = saved;
    await rm(dir, { recursive: true, force: true });
  }
});

s.run();
