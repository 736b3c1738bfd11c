// The fake systemctl, journalctl, chisel and authelia of test/fakes/bin, for the tests that run the
// host adapters where the real program cannot run here (systemd is not PID 1, and chisel and
// Authelia are not packaged): served as pinned release assets so the real install path (download,
// SHA-256, unpack) runs, and the fake systemd's unit states.
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { SystemConfigInput } from '../../lib/system/config.ts';
import { sha256Hex } from '../../lib/system/pinned/install.ts';

export const FAKES = resolve(new URL('../fakes/bin', import.meta.url).pathname);

export const CHISEL_ASSET = '/chisel_1.9.0_linux_amd64.gz';
const AUTHELIA_ASSET = '/authelia-v4.38.4-linux-amd64.tar.gz';

export interface FakeHost {
  /** the system-config part that points the host adapters at the fakes */
  config: SystemConfigInput;
  /** the fake systemd's unit states (FAKE_SYSTEMD_STATE) */
  stateFile: string;
  /** the fake chisel's events (FAKE_CHISEL_LOG) */
  chiselLog: string;
  /** the pid of the last fake journalctl (FAKE_JOURNAL_PIDFILE) */
  journalPidFile: string;
  /** URL of a release asset, e.g. assetUrl(CHISEL_ASSET) */
  assetUrl(name: string): string;
  /** how many requests the asset server has answered (downloads, including failed ones) */
  assetRequests(): number;
  /** argv of every call of a fake program, oldest first */
  calls(program: string): Promise<string[][]>;
  /** sets a unit's state in the fake systemd (unit name without .service) */
  setUnit(unit: string, state: 'active' | 'inactive' | 'failed'): Promise<void>;
  /** drops the asset server's open (keep-alive) connections, so the next download opens a new one */
  closeConnections(): void;
  close(): Promise<void>;
}

/**
 * `units` are active from the start, as on a box where the installer already runs nginx and the
 * panel. The FAKE_* variables and PATH are set for this process (the adapters' children inherit
 * them) and restored by close(). `dir` is not removed: it belongs to the caller.
 */
export async function startFakeHost(dir: string, units: string[] = []): Promise<FakeHost> {
  await mkdir(join(dir, 'bin'), { recursive: true });
  const argvLog = join(dir, 'argv.log');
  const stateFile = join(dir, 'systemd.json');
  const chiselLog = join(dir, 'chisel.log');
  const journalPidFile = join(dir, 'journal.pid');
  await writeFile(stateFile, JSON.stringify(Object.fromEntries(units.map((u) => [`${u}.service`, { state: 'active', since: Date.now() }]))));

  // release assets: the fake programs themselves, packed the way upstream ships them (the
  // Authelia tarball holds more than the binary, as upstream's does)
  const assets = new Map<string, Buffer>();
  assets.set(CHISEL_ASSET, gzipSync(await readFile(join(FAKES, 'chisel'))));
  const stage = join(dir, 'stage', 'authelia');
  await mkdir(stage, { recursive: true });
  await writeFile(join(stage, 'authelia-linux-amd64'), await readFile(join(FAKES, 'authelia')), { mode: 0o755 });
  await writeFile(join(stage, 'README.md'), 'readme');
  const tarball = join(dir, 'stage', 'authelia.tar.gz');
  execFileSync('/usr/bin/tar', ['-czf', tarball, '-C', stage, 'README.md', 'authelia-linux-amd64']);
  assets.set(AUTHELIA_ASSET, await readFile(tarball));
  // the checksum file a release publishes beside each asset, in sha256sum's format
  for (const [name, body] of [...assets]) assets.set(`${name}.sha256`, Buffer.from(`${sha256Hex(body)}  ${name.slice(1)}\n`));
  let requests = 0;
  const server = createServer((req, res) => {
    requests++;
    const body = assets.get(req.url ?? '');
    res.statusCode = body ? 200 : 404;
    res.end(body ?? 'not found');
  });
  // a port of its own choosing: one picked free and bound later may be another lane's by then
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
  const { port } = server.address() as AddressInfo;

  const env = {
    FAKE_ARGV_LOG: argvLog,
    FAKE_SYSTEMD_STATE: stateFile,
    FAKE_CHISEL_LOG: chiselLog,
    FAKE_JOURNAL_PIDFILE: journalPidFile,
    PATH: `${FAKES}:${process.env.PATH ?? ''}`,
  };
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);

  const assetUrl = (name: string) => `http://127.0.0.1:${port}${name}`;
  const release = (name: string) => ({ version: name === CHISEL_ASSET ? '1.9.0' : '4.38.4', url: assetUrl(name), sha256: sha256Hex(assets.get(name)!) });
  return {
    stateFile,
    chiselLog,
    journalPidFile,
    assetUrl,
    assetRequests: () => requests,
    config: {
      binaries: {
        systemctl: join(FAKES, 'systemctl'),
        journalctl: join(FAKES, 'journalctl'),
        chisel: join(dir, 'bin', 'chisel'),
        authelia: join(dir, 'bin', 'authelia'),
      },
      chisel: { dir: join(dir, 'chisel'), release: release(CHISEL_ASSET) },
      authelia: { dir: join(dir, 'authelia'), release: release(AUTHELIA_ASSET) },
      systemd: { unitDir: join(dir, 'systemd') },
    },
    async calls(program) {
      const text = await readFile(argvLog, 'utf8').catch(() => '');
      return text
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { prog: string; argv: string[] })
        .filter((c) => c.prog === program)
        .map((c) => c.argv);
    },
    async setUnit(unit, state) {
      const units = JSON.parse(await readFile(stateFile, 'utf8')) as Record<string, unknown>;
      units[`${unit}.service`] = { state, since: state === 'active' ? Date.now() : 0 };
      await writeFile(stateFile, JSON.stringify(units));
    },
    closeConnections() {
      server.closeAllConnections();
    },
    async close() {
      server.closeAllConnections();
      await new Promise((ok) => server.close(ok));
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    },
  };
}
