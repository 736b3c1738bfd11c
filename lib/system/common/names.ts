// Validation of names that end up in file paths or program arguments.
import ipaddr from 'ipaddr.js';
import { SystemError } from '../types.ts';

/** An nginx listen address: IPv4 digits and dots, or a bracketed IPv6 address. */
export const LISTEN_ADDRESS = /^[0-9.]+$|^\[[0-9a-f:]+\]$/;

const FQDN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$/;

/**
 * What node:dns's setServers takes: an IP address, `a.b.c.d:port` or `[v6]:port`. Checked with the
 * configuration, since the resolver (and its own check) is made only on the first lookup.
 */
export function isDnsServer(server: string): boolean {
  const withPort = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(server) ?? /^([0-9.]+):(\d{1,5})$/.exec(server);
  const [address, port] = withPort ? [withPort[1]!, withPort[2]] : [server, undefined];
  // node aborts the whole process on port 0
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) return false;
  return ipaddr.IPv4.isValidFourPartDecimal(address) || ipaddr.IPv6.isValid(address);
}

export function isFqdn(name: string): boolean {
  return FQDN.test(name);
}

/** Lowercase DNS name with at least two labels; anything else could escape a path or a template. */
export function assertFqdn(name: string): string {
  if (typeof name !== 'string' || !FQDN.test(name)) throw new SystemError(`Invalid domain name '${String(name)}'`);
  return name;
}

/**
 * The longest file name we generate: the atomic writer's temp file beside it
 * (`.<name>.<pid>.<12 hex>.tmp`, 26 more with a 7-digit pid) stays within Linux's 255 per name.
 */
export const MAX_FILE_NAME = 229;

const FILE_NAME = new RegExp(`^[A-Za-z0-9][A-Za-z0-9._-]{0,${MAX_FILE_NAME - 1}}$`);

/** A single path component we generated: no separators, no dot files, no traversal. */
export function assertFileName(name: string): string {
  if (typeof name !== 'string' || !FILE_NAME.test(name) || name.includes('..')) {
    throw new SystemError(`Invalid file name '${String(name)}'`);
  }
  return name;
}

export function assertPort(port: number): number {
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new SystemError(`Invalid port ${String(port)}`);
  return port;
}

/** Client-certificate common names: `admin` or `agent:<label>`. */
export function assertClientCommonName(cn: string): string {
  if (cn === 'admin' || /^agent:[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(cn)) return cn;
  throw new SystemError(`Invalid certificate common name '${String(cn)}'`);
}

/** Portal usernames as the spec allows them. */
export function assertUsername(name: string): string {
  if (typeof name !== 'string' || !/^[a-z0-9_-]{2,32}$/.test(name)) throw new SystemError(`Invalid username '${String(name)}'`);
  return name;
}

/** An absolute path without traversal; rejects what would let a template point outside its tree. */
export function assertAbsolutePath(p: string): string {
  if (typeof p !== 'string' || !p.startsWith('/') || p.split('/').includes('..') || /[\0\n\r;{}'"\\$]/.test(p)) {
    throw new SystemError(`Invalid path '${String(p)}'`);
  }
  return p;
}
