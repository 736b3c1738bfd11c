// `server.mjs vhosts --helper-config FILE apply`: the root helper, run by root's launcher
// (/opt/relay-panel/bin/relay-panel-vhosts, the one vhost line in the panel's sudo rules) with the
// request on stdin. Exit 0 when applied; 1 with one line on stderr when refused or failed; 2 on usage.
import { parseArgs } from 'node:util';
import type { Readable, Writable } from 'node:stream';
import type { PublicLocations } from '../system/types.ts';
import { MAX_VHOST_REQUEST_BYTES } from '../system/nginx/vhost-request.ts';
import { SystemError } from '../system/types.ts';
import { applyVhostRequest } from './apply.ts';
import { readHelperConfig } from './config.ts';

export { VHOST_HELPER_COMMAND } from './command.ts';
export const VHOST_HELPER_USAGE = 'usage: relay-panel vhosts --helper-config FILE apply   (request on stdin)';

async function readRequest(input: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of input) {
    size += (chunk as Buffer).length;
    if (size > MAX_VHOST_REQUEST_BYTES) throw new SystemError(`Invalid vhost request: larger than ${MAX_VHOST_REQUEST_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export async function runVhostHelper(argv: string[], input: Readable, publicLocations: PublicLocations, errors: Pick<Writable, 'write'> = process.stderr): Promise<number> {
  let file: string;
  try {
    const { values, positionals } = parseArgs({ args: argv, options: { 'helper-config': { type: 'string' } }, allowPositionals: true, strict: true });
    if (!values['helper-config'] || positionals.length !== 1 || positionals[0] !== 'apply') throw new Error('one action: apply');
    file = values['helper-config'];
  } catch (e) {
    errors.write(`relay-panel vhosts: ${(e as Error).message}\n${VHOST_HELPER_USAGE}\n`);
    return 2;
  }
  try {
    await applyVhostRequest(await readHelperConfig(file), publicLocations, await readRequest(input));
    return 0;
  } catch (e) {
    // one line: the panel shows the last one as the reason
    errors.write(`${String((e as Error).message ?? e).replace(/\s*\n\s*/g, '; ')}\n`);
    return 1;
  }
}
