// What the reload watch reads (lib/system/proxy/nginx-proc.ts), against a fake /proc and log: the
// master from its pid file, its children from the kernel's list or from every stat, the log's new
// whole lines.
import { appendFile, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { childPids, logSize, logTail, nginxMasterPid, parentOf, workerShuttingDown } from '../../../lib/system/proxy/nginx-proc.ts';

const s = suite('nginx in /proc and its error log');
let dir = '';
let proc = '';

async function fakeProcess(pid: number, o: { cmdline?: string; ppid: number; children?: number[] }): Promise<void> {
  await mkdir(join(proc, String(pid), 'task', String(pid)), { recursive: true });
  await writeFile(join(proc, String(pid), 'cmdline'), o.cmdline ?? 'nginx: worker process\0');
  await writeFile(join(proc, String(pid), 'stat'), `${pid} (nginx) S ${o.ppid} ${pid} ${pid} 0 -1 4194624 0 0\n`);
  if (o.children) await writeFile(join(proc, String(pid), 'task', String(pid), 'children'), o.children.map((c) => `${c} `).join(''));
}

s.before.each(async () => {
  dir = await mkdtemp(join(tmpdir(), 'relay-nginx-proc-'));
  proc = join(dir, 'proc');
  await mkdir(proc);
});
s.after.each(() => rm(dir, { recursive: true, force: true }));

s('a worker told to quit is titled so; one whose title cannot be read is unknown', async () => {
  await fakeProcess(400, { ppid: 300 });
  await fakeProcess(401, { cmdline: 'nginx: worker process is shutting down\0', ppid: 300 });
  assert.is(await workerShuttingDown(400, proc), false);
  assert.is(await workerShuttingDown(401, proc), true);
  assert.is(await workerShuttingDown(402, proc), null, 'hidden or gone');
});

s('the master: the pid file\'s number when that process is an nginx master; otherwise null', async () => {
  await fakeProcess(300, { cmdline: 'nginx: master process /usr/sbin/nginx -g daemon on;\0', ppid: 1 });
  await fakeProcess(301, { cmdline: '/usr/bin/node\0server.mjs\0', ppid: 1 });
  const pidFile = join(dir, 'nginx.pid');
  await writeFile(pidFile, '300\n');
  assert.is(await nginxMasterPid(pidFile, proc), 300);
  await writeFile(pidFile, '301\n');
  assert.is(await nginxMasterPid(pidFile, proc), null, 'a stale pid file naming another program');
  await writeFile(pidFile, '999\n');
  assert.is(await nginxMasterPid(pidFile, proc), null, 'a pid no process has');
  await writeFile(pidFile, 'junk');
  assert.is(await nginxMasterPid(pidFile, proc), null);
  assert.is(await nginxMasterPid(join(dir, 'missing.pid'), proc), null);
});

s('children: the kernel\'s list of the master\'s task; null once the master is gone', async () => {
  await fakeProcess(300, { ppid: 1, children: [301, 302] });
  assert.equal(await childPids(300, proc), [301, 302]);
  assert.is(await childPids(999, proc), null);
});

s('children without the kernel\'s list: every process whose stat names the master as parent', async () => {
  await fakeProcess(300, { ppid: 1 });
  await fakeProcess(301, { ppid: 300 });
  await fakeProcess(305, { ppid: 300 });
  await fakeProcess(310, { ppid: 1 });
  assert.equal((await childPids(300, proc))?.sort(), [301, 305]);
});

s('parentOf: a command name with spaces and parentheses', () => {
  assert.is(parentOf('77 (a) b (c)) S 12 77 77 0'), 12);
});

s('the log: whole lines since the start, a torn last line held back, a rotated file read from its start', async () => {
  const log = join(dir, 'error.log');
  await writeFile(log, 'old line\n');
  const tail = logTail(log, await logSize(log));
  assert.equal(await tail.lines(), []);
  await appendFile(log, 'one\ntw');
  assert.equal(await tail.lines(), ['one']);
  await appendFile(log, 'o\n');
  assert.equal(await tail.lines(), ['two']);
  await writeFile(log, 'after rotation\n');
  assert.equal(await tail.lines(), ['after rotation']);
});

s('the log through a link, or missing: nothing read (root never follows a link to it)', async () => {
  await writeFile(join(dir, 'elsewhere'), '');
  await symlink(join(dir, 'elsewhere'), join(dir, 'linked.log'));
  const tail = logTail(join(dir, 'linked.log'), 0);
  await appendFile(join(dir, 'elsewhere'), '2026/11/28 [emerg] 1#1: secret\n');
  assert.equal(await tail.lines(), []);
  assert.is(await logSize(join(dir, 'linked.log')), 0);
  assert.equal(await logTail(join(dir, 'missing.log'), 0).lines(), []);
});

s.run();
