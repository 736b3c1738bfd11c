// The TCP listeners of this network namespace, read from the kernel's own tables (/proc/net/tcp and
// tcp6): the addresses really bound, where a connect probe only says that one address answers.
// Kernel files: nothing a less privileged user wrote is read or followed. `procDir` is for tests.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseTcpListeners, parseUdpSockets, type TcpListener } from './proc-net.ts';

const TCP_TABLES = ['net/tcp', 'net/tcp6'] as const;

/**
 * Every listener in both tables; a missing tcp6 (IPv6 off) is an empty table. null when neither
 * can be read (not Linux, no /proc): the caller says what it did instead.
 */
export async function readTcpListeners(procDir = '/proc'): Promise<TcpListener[] | null> {
  const texts = await Promise.all(TCP_TABLES.map((t) => readFile(join(procDir, t), 'utf8').catch(() => null)));
  if (texts.every((t) => t === null)) return null;
  return texts.flatMap((t) => (t === null ? [] : parseTcpListeners(t)));
}

/** Where the listeners and bound UDP sockets are read: the kernel's tables, or a sandbox's own (lib/system/sandbox/socket-table.ts). */
export interface SocketTables {
  tcp(): Promise<TcpListener[] | null>;
  udp(): Promise<TcpListener[] | null>;
}

export function kernelSocketTables(procDir = '/proc'): SocketTables {
  return { tcp: () => readTcpListeners(procDir), udp: () => readUdpSockets(procDir) };
}

export const KERNEL_SOCKET_TABLES = kernelSocketTables();

const UDP_TABLES = ['net/udp', 'net/udp6'] as const;

/** The texts of both UDP tables that could be read (a missing udp6: IPv6 off); null when neither. */
export async function readUdpTables(procDir = '/proc'): Promise<string[] | null> {
  const texts = (await Promise.all(UDP_TABLES.map((t) => readFile(join(procDir, t), 'utf8').catch(() => null)))).filter((t): t is string => t !== null);
  return texts.length === 0 ? null : texts;
}

/** Every bound UDP socket in both tables, as readTcpListeners reads TCP's; null when neither can be read. */
export async function readUdpSockets(procDir = '/proc'): Promise<TcpListener[] | null> {
  return (await readUdpTables(procDir))?.flatMap((t) => parseUdpSockets(t)) ?? null;
}
