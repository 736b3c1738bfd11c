// An authoritative bind9 on a free loopback port for one zone, taking RFC 2136 updates signed with
// a TSIG key (what certbot's dns-rfc2136 plugin sends), with every name of the zone at 127.0.0.1
// so pebble's HTTP-01 checks reach nginx too. named logs its queries, so a test can show pebble
// looked the challenge up here. Stopped by its PID.
import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { promises as dns } from 'node:dns';
import { freePorts } from '../../../infra/ports.ts';
import { startProcess, stopProcess, waitFor } from '../../../infra/processes.ts';
import { tsigSecret, zoneText } from '../../../helpers/bind-zone-text.ts';

const run = promisify(execFile);

export interface BindZone {
  port: number;
  keyName: string;
  /** the TSIG key's base64 secret */
  secret: string;
  /** named's log, with its query log */
  log(): Promise<string>;
  stop(): Promise<void>;
}

export async function startBindZone(dir: string, zone: string): Promise<BindZone> {
  const [port] = await freePorts(1);
  const bindDir = join(dir, 'bind');
  await mkdir(bindDir, { recursive: true });
  const keyName = 'certbot-key';
  const key = (await run('/usr/sbin/tsig-keygen', ['-a', 'hmac-sha256', keyName])).stdout;
  const secret = tsigSecret(key, 'tsig-keygen\'s output');
  await writeFile(join(bindDir, 'tsig.key'), key);
  await writeFile(join(bindDir, `${zone}.zone`), zoneText(zone, '127.0.0.1'));
  // the directory must be writable: named keeps the zone's journal of updates beside it
  await writeFile(join(bindDir, 'named.conf'), `include "${join(bindDir, 'tsig.key')}";
options {
    directory "${bindDir}"; pid-file "${join(bindDir, 'named.pid')}"; session-keyfile "${join(bindDir, 'session.key')}";
    listen-on port ${port} { 127.0.0.1; }; listen-on-v6 { none; };
    recursion no; dnssec-validation no; allow-transfer { none; }; querylog yes;
};
controls { };
zone "${zone}" { type primary; file "${zone}.zone"; allow-update { key "${keyName}"; }; };
`);
  const logFile = join(bindDir, 'named.log');
  const named = startProcess('named', '/usr/sbin/named', ['-g', '-c', join(bindDir, 'named.conf')], logFile);
  const resolver = new dns.Resolver({ timeout: 500, tries: 1 });
  resolver.setServers([`127.0.0.1:${port}`]);
  try {
    await waitFor('named', async () => (await resolver.resolveSoa(zone).catch(() => null)) !== null, named);
  } catch (e) {
    await stopProcess(named);
    throw e;
  }
  return { port: port!, keyName, secret, log: () => readFile(logFile, 'utf8'), stop: () => stopProcess(named) };
}
