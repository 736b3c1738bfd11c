// /proc/net/tcp, tcp6, udp and udp6, the kernel's socket tables: a header, then one socket a
// line, `sl local_address rem_address st ...`, each address `<hex address>:<hex port>`. The kernel
// prints the address's bytes as 32-bit words (%08X) in the machine's byte order, so on a
// little-endian machine 127.0.0.1 is 0100007F; the port is plain hex; state 0A is LISTEN. A fixed
// kernel format that no maintained package parses; the few lines below do.
import { endianness } from 'node:os';

export interface TcpListener {
  /** as a URL writes a host: `0.0.0.0`, `127.0.0.1`, `[::]`, `[::1]` (RFC 5952: lowercase, shortest, bracketed) */
  host: string;
  port: number;
}

const LISTEN = '0A';

/**
 * An IP address in the one text form the tables are compared in (a URL's host: `127.1` is
 * `127.0.0.1`, `[0:0::0]` and `::` are `[::]`); brackets optional. null when it is not an address.
 */
export function canonicalHost(address: string): string | null {
  const bare = address.replace(/^\[(.*)\]$/, '$1');
  if (!/^[0-9a-fA-F.:]+$/.test(bare)) return null;
  try {
    return new URL(`http://${bare.includes(':') ? `[${bare}]` : bare}/`).hostname;
  } catch {
    return null;
  }
}

/** `<host>:<port>` with the host as canonicalHost writes it, or as given when it is a name (`localhost`). */
export const hostPort = (host: string, port: number): string => `${canonicalHost(host) ?? host}:${port}`;

function decodeAddress(hex: string, order: 'LE' | 'BE'): string | null {
  if ((hex.length !== 8 && hex.length !== 32) || !/^[0-9A-Fa-f]+$/.test(hex)) return null;
  const bytes: number[] = [];
  for (let w = 0; w < hex.length; w += 8) {
    const word = [0, 2, 4, 6].map((i) => parseInt(hex.slice(w + i, w + i + 2), 16));
    bytes.push(...(order === 'LE' ? word.reverse() : word));
  }
  if (bytes.length === 4) return bytes.join('.');
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i]! << 8) | bytes[i + 1]!).toString(16));
  return canonicalHost(groups.join(':'));
}

/**
 * Every listening socket of one table (tcp or tcp6), in table order; `order` is the byte order of
 * the machine that printed it (this one's unless a test says).
 */
export function parseTcpListeners(table: string, order: 'LE' | 'BE' = endianness()): TcpListener[] {
  return socketRows(table, order).filter((row) => row.fields[3] === LISTEN).map(({ host, port }) => ({ host, port }));
}

/**
 * Every socket of a UDP table (udp or udp6): a UDP socket holds its local port whatever its state
 * (07 unconnected, 01 connected), so each one is a port another bind would collide with.
 */
export function parseUdpSockets(table: string, order: 'LE' | 'BE' = endianness()): TcpListener[] {
  return socketRows(table, order).map(({ host, port }) => ({ host, port }));
}

export interface UdpSocketDrops extends TcpListener {
  /** datagrams the kernel dropped on the socket since it was opened (its receive buffer was full) */
  drops: number;
}

/**
 * Every socket of a UDP table with its drops, the row's last column: `sl local rem st tx:rx tr:when
 * retr uid timeout inode ref pointer drops`. The one place a line the socket's owner could not take
 * in time shows.
 */
export function parseUdpSocketDrops(table: string, order: 'LE' | 'BE' = endianness()): UdpSocketDrops[] {
  const out: UdpSocketDrops[] = [];
  for (const { host, port, fields } of socketRows(table, order)) {
    const drops = Number(fields[12]);
    if (Number.isInteger(drops)) out.push({ host, port, drops });
  }
  return out;
}

/** Each socket row whose local address reads, with its fields (split on white space). */
function socketRows(table: string, order: 'LE' | 'BE'): { host: string; port: number; fields: string[] }[] {
  const out: { host: string; port: number; fields: string[] }[] = [];
  for (const line of table.split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    const local = fields[1];
    if (fields[3] === undefined || !local) continue;
    const colon = local.lastIndexOf(':');
    const host = decodeAddress(local.slice(0, colon), order);
    const port = parseInt(local.slice(colon + 1), 16);
    if (host && Number.isInteger(port)) out.push({ host, port, fields });
  }
  return out;
}
