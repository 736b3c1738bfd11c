// `server.mjs panel-task`: one task of as-panel-user.ts, read as JSON on stdin, answered as JSON on
// stdout; a failure is one line on stderr and exit 1. It never runs as root: what it does in the
// panel's directories is the panel's user's to do.
import { moveLegacyLineages } from '../acme-move.ts';
import { makeConfig, syncSystem, writeConfig } from './config-tasks.ts';
import { makeDirs } from './dirs.ts';
import { makeHostKey, makePki, makeVhostMaterial } from './material.ts';
import type { PanelTask } from './protocol.ts';

export function doPanelTask(t: PanelTask): Promise<unknown> {
  switch (t.task) {
    case 'dirs':
      return makeDirs(t.dirs);
    case 'config':
      return makeConfig(t.file, t.create);
    case 'sync-system':
      return syncSystem(t);
    case 'acme-move':
      return moveLegacyLineages(t.move);
    case 'write-config':
      return writeConfig(t.file, t.text);
    case 'pki':
      return makePki(t.system, t.adminP12Password);
    case 'vhost-material':
      return makeVhostMaterial(t.system, t.specs);
    case 'host-key':
      return makeHostKey(t.dir);
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function runPanelTaskCommand(): Promise<number> {
  try {
    if (process.geteuid?.() === 0) throw new Error('runs as the panel\'s user, never as root');
    const answer = await doPanelTask(JSON.parse(await readStdin()) as PanelTask);
    process.stdout.write(`${JSON.stringify(answer)}\n`);
    return 0;
  } catch (e) {
    process.stderr.write(`relay-panel panel-task: ${(e as Error).message.replace(/\s*\n\s*/g, '; ')}\n`);
    return 1;
  }
}
