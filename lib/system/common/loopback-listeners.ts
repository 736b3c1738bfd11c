// Which TCP ports have a listener a connection to 127.0.0.1 reaches: one read of the kernel's socket
// tables (/proc/net/tcp and tcp6), whatever the number of ports asked about; where they cannot be
// read (not Linux), one connect per port. The tables are a fixed kernel format of hex fields that
// no maintained package parses; the few lines below do.
import { readFile } from 'node:fs/promises';
import { portOpen } from './port-probe.ts';

const LISTEN = '0A';
/** 127.0.0.1 and 0.0.0.0 in /proc/net/tcp; ::, ::ffff:127.0.0.1 and ::ffff:0.0.0.0 in tcp6 (little-endian words). */
const REACHED_FROM_LOOPBACK = new Set([
  '0100007F', '00000000',
  '00000000000000000000000000000000', '0000000000000000FFFF00000100007F', '0000000000000000FFFF000000000000',
]);

/** Listening ports on addresses that 127.0.0.1 reaches, from the text of /proc/net/tcp or tcp6. */
export function parseListeningPorts(table: string): number[] {
  const ports: number[] = [];
  for (const line of table.split('\n').slice(1)) {
    const [, local, , state] = line.trim().split(/\s+/);
    if (state !== LISTEN || !local) continue;
    const [address, port] = local.split(':');
    if (address && port && REACHED_FROM_LOOPBACK.has(address)) ports.push(parseInt(port, 16));
  }
  return ports;
}

export async function loopbackListening(ports: readonly number[], tables = ['/proc/net/tcp', '/proc/net/tcp6']): Promise<Set<number>> {
  const texts = await Promise.all(tables.map((t) => readFile(t, 'utf8').catch(() => null)));
  const wanted = new Set(ports);
  if (texts.some((t) => t !== null)) {
    return new Set(texts.flatMap((t) => (t === null ? [] : parseListeningPorts(t))).filter((p) => wanted.has(p)));
  }
  const open = await Promise.all([...wanted].map(async (p) => ((await portOpen('127.0.0.1', p, 500)) ? p : null)));
  return new Set(open.filter((p): p is number => p !== null));
}
