// backup and restore read and write the panel's files: on a box where those are another user's,
// root is sent to that user (root never reads or writes where a less privileged user can
// plant a link), before anything is read.
import { chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runBackupCommand } from '../../../lib/backup-commands.ts';

const s = suite('backup and restore as root on a box whose files are the panel\'s');
let dir = '';
s.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'relay-backup-root-'));
});
s.after(() => rm(dir, { recursive: true, force: true }));

s('refused with the owner named, nothing read or written', async () => {
  if (process.getuid?.() !== 0) return console.warn('needs root: skipped');
  const config = join(dir, 'config.json');
  await writeFile(config, 'not even JSON: it must not be read');
  await chown(config, 4242, 4242);
  const errors: string[] = [];
  const log = console.error;
  console.error = (line: string) => errors.push(line);
  try {
    for (const command of ['backup', 'restore'] as const) {
      const args = command === 'backup' ? ['--out', join(dir, 'out.tar.gz')] : ['--from', join(dir, 'in.tar.gz')];
      assert.is(await runBackupCommand(command, ['--config', config, ...args], {}, dir), 2);
    }
  } finally {
    console.error = log;
  }
  assert.is(errors.length, 2);
  for (const line of errors) assert.match(line, `${config} belongs to uid 4242: run this as that user, never as root`);
});

s.run();
