// The proxy adapter of an installed box: the panel may read sites-available/-enabled but not write
// them (nginx's master runs as root, so a vhost is root's power). It makes what the vhosts point
// at, which is its own (client CA, help page, IP-panel certificate), then sends the changes to the
// root helper (lib/root-helper), which checks them, renders, writes, tests, reloads and rolls back.
import { serialQueue } from '../../keyed-lock.ts';
import { vhostName } from './templates.ts';
import { groupCommit } from './group-commit.ts';
import { MAX_VHOST_CHANGES } from './vhost-request.ts';
import { VhostDirs, type VhostDirPaths } from './vhost-dirs.ts';
import { stampChanges } from './vhost-store.ts';
import { fileMark, type VhostStamps } from './vhost-stamps.ts';
import { SystemError, type ProxyAdapter, type RefreshOptions, type VhostChange, type VhostSpec } from '../types.ts';

export interface HelperProxyOptions {
  /** the root helper's `vhosts` action */
  send(changes: VhostChange[]): Promise<void>;
  /** the root helper's `vhosts-refresh` action: the names it rewrote */
  refresh(specs: VhostSpec[]): Promise<string[]>;
  prepare(spec: VhostSpec): Promise<unknown>;
  reload(): Promise<void>;
  /** a stamped vhost stale for a reason outside its file (default-server-drift.ts); false at once when it cannot be */
  drifted?(spec: VhostSpec, path: string): false | Promise<boolean>;
}

export class HelperProxy extends VhostDirs implements ProxyAdapter {
  private readonly serial = serialQueue();
  /** changes that arrive while a request runs go together in the next one: one test and reload in the helper */
  private readonly group = groupCommit((changes) => this.serial(async () => {
    this.forgetMarks();
    for (const change of changes) if (change.op === 'put') await this.opts.prepare(change.spec);
    await asNginxFailure(() => this.opts.send(changes));
    if (this.stamps) await stampChanges(this.stamps, changes, changes.map((c) => (c.op === 'put' ? vhostName(c.spec) : c.name)), (name) => this.available(name));
  }), MAX_VHOST_CHANGES);

  /** `stamps`: the panel's knowledge of what the helper wrote, so a start asks it only about vhosts that may differ */
  constructor(dirs: VhostDirPaths, private readonly opts: HelperProxyOptions, stamps: VhostStamps | null = null) {
    super(dirs, stamps);
  }

  vhostName(spec: VhostSpec): string {
    return vhostName(spec);
  }

  apply(changes: VhostChange[]): Promise<void> {
    return this.afterLook(() => this.group(changes));
  }

  refresh(specs: VhostSpec[], { touchedOnly = false }: RefreshOptions = {}): Promise<string[]> {
    const refresh = () => this.serial(async () => {
      const unique = [...new Map(specs.map((spec) => [vhostName(spec), spec])).values()];
      const unsure = await this.unsureOf(unique, touchedOnly);
      // the helper's rewrite tests nginx over every file: a pass that took the stamps' word looks at the rest first, so a hand edit goes with it
      if (unsure.length > 0 && this.stopTakingStamps()) {
        const asked = new Set(unsure);
        unsure.push(...(await this.unsureOf(unique.filter((spec) => !asked.has(spec)), touchedOnly)));
      }
      // what a vhost points at, made before the helper writes it: a look once the panel listens makes it only for those it asks about
      for (const spec of touchedOnly ? unsure : specs) await this.opts.prepare(spec);
      if (unsure.length > 0) this.forgetMarks();
      const rewritten: string[] = [];
      // the helper takes a bounded batch; each batch tests and reloads only when it rewrote something
      for (let at = 0; at < unsure.length; at += MAX_VHOST_CHANGES) {
        rewritten.push(...(await asNginxFailure(() => this.opts.refresh(unsure.slice(at, at + MAX_VHOST_CHANGES)))));
      }
      // each asked about now holds this release's text: the helper found it so, or wrote it
      if (this.stamps) {
        for (const spec of unsure) await this.stamps.take(vhostName(spec), spec, fileMark(this.available(vhostName(spec))));
        await this.stamps.save();
      }
      return rewritten;
    });
    return this.refreshAfterLook(touchedOnly, refresh);
  }

  /** Of `unique`, the vhosts the panel has no current stamp of, which may differ: the helper reads those alone. `touchedOnly`: RefreshOptions'. */
  private async unsureOf(unique: readonly VhostSpec[], touchedOnly: boolean): Promise<VhostSpec[]> {
    if (touchedOnly) {
      const touched = await this.touchedSinceStamped(unique.map(vhostName));
      return unique.filter((spec) => touched.has(vhostName(spec)));
    }
    const stamps = await this.stamps?.view();
    const unsure: VhostSpec[] = [];
    for (const spec of unique) {
      const name = vhostName(spec);
      if (!stamps?.current(name, this.markOf(name), spec)) unsure.push(spec);
      else {
        const drift = this.opts.drifted?.(spec, this.available(name));
        if (drift && (await drift)) unsure.push(spec);
      }
    }
    return unsure;
  }

  reload(): Promise<void> {
    return this.afterLook(() => this.serial(() => this.opts.reload()));
  }
}

/** The helper's words; the proxy's failures are nginx's, whichever side saw them. */
async function asNginxFailure<T>(send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (e) {
    const err = e as Partial<SystemError>;
    throw new SystemError((e as Error).message, 'nginx', err.stderr, err.code);
  }
}
