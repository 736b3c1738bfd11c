// Pinned installs: download a release asset, verify its SHA-256 (against the pin, and where the pin's
// source cannot be cited also against the .sha256 file the release publishes) before anything is unpacked,
// extract the executable (gzip or tar.gz) and put it in place atomically with mode 0755.
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { writeFileAtomic } from '../atomic-write.ts';
import { SystemError } from '../types.ts';

export interface PinnedRelease {
  name: string;
  version: string;
  url: string;
  sha256: string;
  /** `beside`: also check against the `<url>.sha256` file the release publishes */
  checksumFile?: 'none' | 'beside';
}

/** What a download of this release is checked against, for the install's report. */
export function checksumSources(release: PinnedRelease): string {
  return release.checksumFile === 'beside' ? `its pinned SHA-256 and ${release.url}.sha256` : 'its pinned SHA-256';
}

/** The way out when a box cannot fetch or trust a download. */
function withoutDownloads(release: PinnedRelease, target: string): string {
  return `; to install without downloading: relay-panel install --no-downloads, then put ${release.name} ${release.version} at ${target}`;
}

/** The SHA-256 a `.sha256` file gives for `fileName`: sha256sum's "<hex>  <name>" lines, or a lone hex digest. */
export function publishedSha256(text: string, fileName: string): string | null {
  const lines = text.split('\n').map((l) => l.trim()).filter(Boolean);
  for (const line of lines) {
    const m = /^([0-9a-fA-F]{64})(?:\s+\*?(\S+))?$/.exec(line);
    if (m && (m[2] === undefined ? lines.length === 1 : m[2].split('/').pop() === fileName)) return m[1]!.toLowerCase();
  }
  return null;
}

export function sha256Hex(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

export function checksumMatches(data: Uint8Array, expectedHex: string): boolean {
  const actual = Buffer.from(sha256Hex(data), 'hex');
  const expected = Buffer.from(expectedHex.toLowerCase(), 'hex');
  return expected.length === actual.length && timingSafeEqual(actual, expected);
}

export async function download(url: string, timeoutMs: number): Promise<Buffer> {
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'follow' });
  } catch (e) {
    throw new SystemError(`download of ${url} failed: ${(e as Error).message}`, 'download');
  }
  if (!res.ok) throw new SystemError(`download of ${url} failed: HTTP ${res.status}`, 'download');
  return Buffer.from(await res.arrayBuffer());
}

/** One regular file out of a ustar/GNU tar archive, by its base name. */
export function extractTarMember(tar: Buffer, baseName: string): Buffer {
  let offset = 0;
  let longName: string | null = null;
  while (offset + 512 <= tar.length) {
    const header = tar.subarray(offset, offset + 512);
    if (header.every((b) => b === 0)) break;
    const field = (start: number, len: number) => header.subarray(start, start + len).toString('utf8').replace(/\0.*$/s, '');
    const size = parseInt(field(124, 12).trim() || '0', 8);
    const type = field(156, 1) || '0';
    const prefix = field(345, 155);
    const name = longName ?? (prefix ? `${prefix}/${field(0, 100)}` : field(0, 100));
    const body = tar.subarray(offset + 512, offset + 512 + size);
    longName = null;
    if (type === 'L') longName = body.toString('utf8').replace(/\0.*$/s, '');
    else if ((type === '0' || type === '7') && name.split('/').pop() === baseName) return Buffer.from(body);
    offset += 512 + Math.ceil(size / 512) * 512;
  }
  throw new SystemError(`${baseName} is not in the archive`, 'install');
}

export function unpackExecutable(asset: Buffer, url: string, member: string): Buffer {
  const gz = process.getBuiltinModule('node:zlib').gunzipSync(asset);
  return /\.tar\.gz$|\.tgz$/.test(new URL(url).pathname) ? extractTarMember(gz, member) : gz;
}

/**
 * Installs the release to `target` unless the marker says this exact release is there already.
 * Returns whether anything was written.
 */
export async function installPinned(release: PinnedRelease, target: string, opts: { timeoutMs: number; archiveMember?: string }): Promise<boolean> {
  const marker = `${target}.release`;
  const stamp = `${release.version} ${release.sha256}\n`;
  try {
    if ((await readFile(marker, 'utf8')) === stamp && (await readFile(target)).length > 0) return false;
  } catch {
    // not installed yet
  }
  const wayOut = withoutDownloads(release, target);
  const fetchOrExplain = (url: string) => download(url, opts.timeoutMs).catch((e: Error) => Promise.reject(new SystemError(`${e.message}${wayOut}`, 'download')));
  const asset = await fetchOrExplain(release.url);
  if (!checksumMatches(asset, release.sha256)) {
    throw new SystemError(`${release.name} ${release.version}: SHA-256 mismatch (expected ${release.sha256}, the pinned value; got ${sha256Hex(asset)} from ${release.url})${wayOut}`, 'install');
  }
  if (release.checksumFile === 'beside') {
    const listUrl = `${release.url}.sha256`;
    const published = publishedSha256((await fetchOrExplain(listUrl)).toString('utf8'), new URL(release.url).pathname.split('/').pop()!);
    if (published !== sha256Hex(asset)) {
      throw new SystemError(`${release.name} ${release.version}: SHA-256 mismatch (the release publishes ${published ?? 'no SHA-256 for it'} in ${listUrl}; got ${sha256Hex(asset)})${wayOut}`, 'install');
    }
  }
  let binary: Buffer;
  try {
    binary = unpackExecutable(asset, release.url, opts.archiveMember ?? release.name);
  } catch (e) {
    throw e instanceof SystemError ? e : new SystemError(`${release.name}: cannot unpack ${release.url}: ${(e as Error).message}`, 'install');
  }
  await writeFileAtomic(target, binary, 0o755);
  await writeFileAtomic(marker, stamp, 0o644);
  return true;
}
