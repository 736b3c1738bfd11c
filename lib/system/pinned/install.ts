// Pinned installs: download a release asset, check its SHA-256 against the pin (whose source
// docs/decisions.md cites) and, where the release publishes one, against the `.sha256` file beside the
// asset, before anything is unpacked; extract the executable (gzip or tar.gz) and put it in place
// atomically with mode 0755. A refusal writes nothing and names the expected and the actual SHA-256,
// where each came from, and the way to install without downloading.
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { writeFileAtomic } from '../common/atomic-write.ts';
import { SystemError } from '../types.ts';

export interface PinnedRelease {
  /** the program, and the section of the system configuration that holds its `release` */
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

export interface PublishedSha256 {
  sha256: string;
  /** the file name the line gives, if any */
  name: string | null;
}

/**
 * The SHA-256 that a checksum file published beside the asset `fileName` (`<asset url>.sha256`) gives
 * for it, in sha256sum's format (`<hex>  <name>`, `<hex> *<name>`) or as a lone digest. The file is the
 * asset's by its address, so one line counts whatever name it gives: Authelia's 4.38 releases write
 * the name the asset had when it was built (`authelia-linux-amd64.tar.gz`), before their release step
 * put the version in the asset's name. Several lines (a list) count only by the line naming `fileName`.
 * A file with any other line (an error page served as 200) gives null: it is no checksum file.
 */
export function publishedSha256(text: string, fileName: string): PublishedSha256 | null {
  const lines = text.split('\n').map((l) => l.trim()).filter(Boolean);
  const entries: PublishedSha256[] = [];
  for (const line of lines) {
    const m = /^([0-9a-fA-F]{64})(?:\s+\*?(\S+))?$/.exec(line);
    if (!m) return null;
    entries.push({ sha256: m[1]!.toLowerCase(), name: m[2] ?? null });
  }
  if (entries.length === 1) return entries[0]!;
  return entries.find((e) => e.name !== null && e.name.split('/').pop() === fileName) ?? null;
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
  const refuse = (why: string) => new SystemError(`${release.name} ${release.version}: ${why}${wayOut}`, 'install');
  const asset = await download(release.url, opts.timeoutMs).catch((e: Error) => Promise.reject(new SystemError(`${e.message}${wayOut}`, 'download')));
  const got = `got ${sha256Hex(asset)}, the SHA-256 of what ${release.url} served`;
  if (!checksumMatches(asset, release.sha256)) {
    throw refuse(`SHA-256 mismatch: the download is not the pinned release (expected ${release.sha256}, the pinned ${release.name}.release.sha256 of the system configuration; ${got})`);
  }
  if (release.checksumFile === 'beside') {
    // what the release itself says about its asset (4.38 releases sign nothing: docs/decisions.md)
    const listUrl = `${release.url}.sha256`;
    const assetName = new URL(release.url).pathname.split('/').pop()!;
    const text = await download(listUrl, opts.timeoutMs).catch((e: Error) =>
      Promise.reject(refuse(`cannot check it against what its release publishes: ${e.message} (pinned ${release.sha256}; ${got})`)));
    const published = publishedSha256(text.toString('utf8'), assetName);
    if (!published) throw refuse(`${listUrl} gives no SHA-256 for ${assetName} (a sha256sum line was expected; ${got})`);
    if (published.sha256 !== sha256Hex(asset)) {
      throw refuse(`SHA-256 mismatch: the release publishes ${published.sha256}${published.name ? ` for ${published.name}` : ''} in ${listUrl}; ${got}`);
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
