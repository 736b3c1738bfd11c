// The proxy adapter's file logic, shared by host and sandbox: vhost files in sites-available,
// symlinks in sites-enabled (a shared app's route: in the routes directory, vhost-dirs.ts), a
// configuration test after every change and a rollback when it fails.
import { mkdir, readlink, symlink, unlink } from 'node:fs/promises';
import { writeFileAtomic, writeFilesAtomic } from '../common/atomic-write.ts';
import { assertFileName } from '../common/names.ts';
import { serialQueue } from '../../keyed-lock.ts';
import { readOrNull } from '../common/fs.ts';
import { SystemError, type ProxyAdapter, type RefreshOptions, type VhostChange, type VhostSpec } from '../types.ts';
import { isRouteSpec, isRouteText, vhostName } from './templates.ts';
import { stampVhost } from './vhost-stamp.ts';
import { ignoreMissing, VhostDirs, type VhostDirPaths } from './vhost-dirs.ts';
import { fileMark, type FileMark, type VhostStamps } from './vhost-stamps.ts';
import { groupCommit } from './group-commit.ts';
import { MAX_VHOST_CHANGES } from './vhost-request.ts';

export interface VhostStoreOptions extends VhostDirPaths {
  render(spec: VhostSpec): Promise<string>;
  /** throws a SystemError with nginx's words when the configuration is invalid */
  test(): Promise<void>;
  /** throws when the reload did not take effect */
  reload(): Promise<void>;
  /** the panel's knowledge of what it wrote (none in the root helper, which the panel asks) */
  stamps?: VhostStamps;
  /** a stamped vhost stale for a reason outside its file (default-server-drift.ts); false at once when it cannot be */
  drifted?(spec: VhostSpec, path: string): false | Promise<boolean>;
}

/** A vhost whose file holds other text than this release makes of its spec. */
interface Stale {
  name: string;
  spec: VhostSpec;
  content: string;
}

/** A put whose file applyNow already wrote with the others. */
const WRITTEN = Symbol('written');

/** Where a name is linked: sites-enabled, the routes directory, or nowhere. */
type LinkPlace = 'enabled' | 'routes' | null;

interface Snapshot {
  name: string;
  content: string | null;
  link: LinkPlace;
}

export class VhostStore extends VhostDirs implements ProxyAdapter {
  private readonly serial = serialQueue();
  /** changes that arrive while a batch runs share the next one's test and reload (group-commit.ts) */
  private readonly group = groupCommit((changes) => this.serial(() => this.applyNow(changes)), MAX_VHOST_CHANGES);

  constructor(private readonly opts: VhostStoreOptions) {
    super(opts, opts.stamps ?? null);
  }

  vhostName(spec: VhostSpec): string {
    return vhostName(spec);
  }

  apply(changes: VhostChange[]): Promise<void> {
    return this.afterLook(() => this.group(changes));
  }

  /**
   * Rewrites each vhost whose file is there and whose text is not what the templates make now
   * (a release's new templates, a hand edit), its link kept as it is; one test and reload for
   * all of them, none when nothing differs. Answers the names rewritten.
   */
  refresh(specs: VhostSpec[], { touchedOnly = false }: RefreshOptions = {}): Promise<string[]> {
    const refresh = () => this.serial(async () => {
      const unique = [...new Map(specs.map((spec) => [vhostName(spec), spec])).entries()];
      const stale = await this.staleOf(unique, touchedOnly);
      // the rewrite tests nginx over every file: a pass that took the stamps' word looks at the rest first, so a hand edit goes with it
      if (stale.length > 0 && this.stopTakingStamps()) {
        const found = new Set(stale.map((vhost) => vhost.name));
        stale.push(...(await this.staleOf(unique.filter(([name]) => !found.has(name)), touchedOnly)));
      }
      if (stale.length > 0) {
        // links kept as they are: one listing, and only when something is rewritten
        const linked = await this.linkedNames();
        await this.applyNow(stale.map(({ name, spec }) => ({ op: 'put' as const, spec, enabled: linked.has(name) })), new Map(stale.map((vhost) => [vhost.name, vhost.content])));
      }
      await this.stamps?.save();
      return stale.map((vhost) => vhost.name);
    });
    return this.refreshAfterLook(touchedOnly, refresh);
  }

  /**
   * Of `unique` (name, spec), the vhosts whose file holds other text than this release makes. A
   * vhost stamped as this release's text of the same spec, untouched since, is not read: a start
   * with nothing changed reads no vhost; the others are read and rendered, all at once.
   * `touchedOnly`: RefreshOptions'.
   */
  private async staleOf(unique: ReadonlyArray<[string, VhostSpec]>, touchedOnly: boolean): Promise<Stale[]> {
    const compared: Promise<Stale | null>[] = [];
    if (touchedOnly) {
      const touched = await this.touchedSinceStamped(unique.map(([name]) => name));
      for (const [name, spec] of unique) {
        const mark = touched.get(name);
        if (mark) compared.push(this.compare(name, spec, mark));
      }
      return (await Promise.all(compared)).filter((vhost) => vhost !== null);
    }
    const stamps = await this.stamps?.view();
    for (const [name, spec] of unique) {
      const path = this.available(name);
      const mark = this.markOf(name);
      if (mark === null) continue;
      if (!stamps?.current(name, mark, spec)) compared.push(this.compare(name, spec, mark));
      else {
        const drift = this.opts.drifted?.(spec, path);
        if (drift) compared.push(drift.then((drifted) => (drifted ? this.compare(name, spec, mark) : null)));
      }
    }
    return (await Promise.all(compared)).filter((vhost) => vhost !== null);
  }

  /** The vhost's text when this release makes other text of its spec than the file holds; else the file is stamped as current. */
  private async compare(name: string, spec: VhostSpec, mark: FileMark): Promise<Stale | null> {
    const written = await readOrNull(this.available(name));
    if (written === null) return null;
    const content = await this.opts.render(spec);
    if (written !== stampVhost(content)) return { name, spec, content };
    await this.stamps?.take(name, spec, mark);
    return null;
  }

  /** `rendered`: vhost texts already made from these changes' specs (a refresh compared them). */
  private async applyNow(changes: VhostChange[], known: ReadonlyMap<string, string> = new Map()): Promise<void> {
    this.forgetMarks();
    await this.ensureDirs();
    const rendered = await Promise.all(changes.map(async (c) => {
      if (c.op !== 'put') return null;
      const name = vhostName(c.spec);
      return { name, content: known.get(name) ?? (await this.opts.render(c.spec)) };
    }));
    const names = changes.map((c, i) => (c.op === 'put' ? rendered[i]!.name : assertFileName(c.name)));
    const [linked, routed] = await Promise.all([this.linkedNames(), this.routedNames()]);
    const snapshots = await Promise.all([...new Set(names)].map((n) => this.snapshot(n, linked, routed)));
    try {
      // one file per name: the files can be written together; a name changed twice keeps its order
      const together = new Set(names).size === names.length;
      if (together) await writeFilesAtomic(changes.flatMap((c, i) => (c.op === 'put' ? [{ path: this.available(names[i]!), data: stampVhost(rendered[i]!.content), mode: 0o644 }] : [])));
      for (const [i, change] of changes.entries()) await this.applyOne(change, names[i]!, together ? WRITTEN : (rendered[i]?.content ?? null));
      await this.opts.test();
    } catch (e) {
      await this.restore(snapshots);
      throw asSystemError(e);
    }
    try {
      await this.opts.reload();
    } catch (e) {
      await this.restore(snapshots);
      await this.opts.reload().catch(() => {});
      throw asSystemError(e);
    }
    if (this.stamps) await stampChanges(this.stamps, changes, names, (name) => this.available(name));
  }

  reload(): Promise<void> {
    return this.afterLook(() => this.serial(() => this.opts.reload()));
  }

  /** `content`: the put's vhost text, or WRITTEN when the file was written with the others. */
  private async applyOne(change: VhostChange, name: string, content: string | null | typeof WRITTEN): Promise<void> {
    switch (change.op) {
      case 'put':
        if (content !== WRITTEN) await writeFileAtomic(this.available(name), stampVhost(content ?? ''), 0o644);
        if (change.enabled) await this.link(name, isRouteSpec(change.spec) ? 'routes' : 'enabled');
        else await this.unlink(name);
        return;
      case 'enable': {
        const text = await readOrNull(this.available(name));
        if (text === null) throw new SystemError(`vhost ${name} does not exist`);
        await this.link(name, isRouteText(text) ? 'routes' : 'enabled');
        return;
      }
      case 'disable':
        await this.unlink(name);
        return;
      case 'remove':
        await this.unlink(name);
        await unlink(this.available(name)).catch(ignoreMissing);
        return;
    }
  }

  private async snapshot(name: string, linked: ReadonlySet<string>, routed: ReadonlySet<string>): Promise<Snapshot> {
    const link: LinkPlace = routed.has(name) ? 'routes' : linked.has(name) ? 'enabled' : null;
    return { name, content: await readOrNull(this.available(name)), link };
  }

  private async restore(snapshots: Snapshot[]): Promise<void> {
    for (const s of snapshots) {
      if (s.content === null) await unlink(this.available(s.name)).catch(ignoreMissing);
      else await writeFileAtomic(this.available(s.name), s.content, 0o644);
      if (s.link) await this.link(s.name, s.link);
      else await this.unlink(s.name);
    }
  }

  private async ensureDirs(): Promise<void> {
    for (const dir of [this.opts.availableDir, this.opts.enabledDir, this.opts.routesDir]) await mkdir(dir, { recursive: true });
  }

  /** Links the name where it belongs and nowhere else: a vhost that became a route (or back) moves. */
  private async link(name: string, place: Exclude<LinkPlace, null>): Promise<void> {
    const [at, other] = place === 'routes' ? [this.routeLink(name), this.enabled(name)] : [this.enabled(name), this.routeLink(name)];
    await unlink(other).catch(ignoreMissing);
    const target = this.available(name);
    try {
      if ((await readlink(at)) === target) return;
    } catch {
      // missing or not a link: replaced below
    }
    await unlink(at).catch(ignoreMissing);
    await symlink(target, at);
  }

  private async unlink(name: string): Promise<void> {
    await unlink(this.enabled(name)).catch(ignoreMissing);
    await unlink(this.routeLink(name)).catch(ignoreMissing);
  }
}

/** Stamps what the changes wrote and forgets what they removed (shared with the helper's proxy). */
export async function stampChanges(stamps: VhostStamps, changes: VhostChange[], names: string[], path: (name: string) => string): Promise<void> {
  for (const [i, change] of changes.entries()) {
    if (change.op === 'put') await stamps.take(names[i]!, change.spec, fileMark(path(names[i]!)));
    else if (change.op === 'remove') await stamps.drop(names[i]!);
  }
  await stamps.save();
}

function asSystemError(e: unknown): SystemError {
  return e instanceof SystemError ? e : new SystemError((e as Error).message ?? String(e));
}

/** nginx's own diagnosis from `nginx -t` output: the [emerg]/[crit] lines, without the noise. */
export function nginxDiagnosis(output: string): string {
  const lines = output
    .split('\n')
    .map((l) => l.replace(/^nginx: /, '').trim())
    .filter((l) => /\[(emerg|crit|alert)\]/.test(l));
  return lines.length ? lines.join('; ') : output.trim().split('\n').slice(-3).join('; ');
}
