// The read side of sites-available/-enabled and the routes directory, shared by the adapters that
// write vhosts themselves and the one whose writes go through the root helper (the panel reads these
// directories, never writes them, on an installed box). A vhost's file is in sites-available and its
// link in sites-enabled; a shared app's route (templates.ts) has its file there too, but its link
// in the routes directory, which only the `tunnels` vhost's map includes.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { assertFileName } from '../common/names.ts';
import type { LinkPlaces, OnePassOptions, VhostSpec, VhostState } from '../types.ts';
import { entryExists, readOrNull } from '../common/fs.ts';
import { isVhostNameOfKind } from './templates.ts';
import { DeferredLook } from './deferred-look.ts';
import { vhostIntact } from './vhost-stamp.ts';
import { fileMark, type FileMark, type StampsView, type VhostStamps } from './vhost-stamps.ts';

export interface VhostDirPaths {
  availableDir: string;
  enabledDir: string;
  routesDir: string;
}

/** Files stat'ed in one turn of the event loop when they are looked at after the start: under a millisecond. */
const LOOKS_PER_TURN = 64;

export class VhostDirs {
  /** `<availableDir>/`: a vhost's path is this and its name (a file name: no join to normalize it) */
  readonly #availablePrefix: string;
  readonly #listings = new Map<string, Promise<string[]>>();
  /** The marks taken in `onePass`, by name (null: no file); none outside one. */
  #passMarks: Map<string, FileMark | null> | null = null;
  /** The start's look at the files it took on their stamps' word, left for later. */
  readonly #look = new DeferredLook();
  /** In a pass that takes the stamps' word for a kind: what they say of each stamped file of it, which is then not looked at. */
  #stampsTaken: { kind: VhostSpec['kind']; stamps: StampsView } | null = null;

  /** `stamps`: what the panel last wrote of each vhost; a file untouched since is not read */
  constructor(protected readonly dirs: VhostDirPaths, protected readonly stamps: VhostStamps | null = null) {
    this.#availablePrefix = join(dirs.availableDir, '/');
  }

  async state(name: string): Promise<VhostState> {
    assertFileName(name);
    const text = await this.textUnlessUntouched(name);
    return { name, written: await entryExists(this.available(name)), enabled: await this.isLinked(name), ...editedMark(text) };
  }

  async list(kind: VhostSpec['kind']): Promise<VhostState[]> {
    const [available, enabled, routed, stamps] = await Promise.all([this.namesIn(this.dirs.availableDir), this.namesIn(this.dirs.enabledDir), this.namesIn(this.dirs.routesDir), this.stamps?.view()]);
    const written = new Set(available);
    const linked = new Set([...enabled, ...routed]);
    const names = [...new Set([...available, ...linked])].filter((name) => isVhostNameOfKind(name, kind)).sort();
    const states: VhostState[] = names.map((name) => ({ name, written: written.has(name), enabled: linked.has(name) }));
    // only a file touched since its stamp (or without one) is read, to tell a hand edit
    const unsure = states.filter((state) => state.written && !stamps?.untouched(state.name, this.markOf(state.name)));
    await Promise.all(unsure.map(async (state) => Object.assign(state, editedMark(await readOrNull(this.available(state.name))))));
    return states;
  }

  /**
   * At 1,000 vhosts the start's repair and refresh each looked at every file (a stat is cheap, the
   * Stats object node builds of it is not: about 10 ms for 1,000 at a cold start); in one pass a
   * file is looked at once. Whatever this adapter writes ends the reuse for every file (forgetMarks),
   * so only a start that changed nothing, a few milliseconds from repair to refresh, reuses a mark.
   * `takeStampsOf`: a stamped file of that kind is taken to be as its stamp says and not looked at
   * at all (the start before it listens, which leaves the look for later: `deferLook`). A pass that
   * stopped taking them (it wrote: every file was looked at) drops a look left and not started.
   */
  async onePass<T>(run: () => Promise<T>, { takeStampsOf }: OnePassOptions = {}): Promise<T> {
    if (this.#passMarks) return run();
    this.#passMarks = new Map();
    let taken = false;
    try {
      this.#stampsTaken = takeStampsOf && this.stamps ? { kind: takeStampsOf, stamps: await this.stamps.view() } : null;
      taken = this.#stampsTaken !== null;
      return await run();
    } finally {
      if (taken && this.#stampsTaken === null) void this.#look.drop();
      this.#passMarks = null;
      this.#stampsTaken = null;
    }
  }

  /** The file's mark: its stamp's in a pass that takes them for its kind, the one taken earlier in this pass, or a new look. */
  protected markOf(name: string): FileMark | null {
    const marks = this.#passMarks;
    if (!marks) return fileMark(this.available(name));
    const taken = this.#stampsTaken;
    const stamped = taken && isVhostNameOfKind(name, taken.kind) ? taken.stamps.stampedMark(name) : undefined;
    if (stamped) return stamped;
    let mark = marks.get(name);
    if (mark === undefined) {
      mark = fileMark(this.available(name));
      marks.set(name, mark);
    }
    return mark;
  }

  /**
   * Of the named files, those there and touched since the panel stamped them (or never stamped),
   * with their marks. Looked at a slice at a time, a turn of the event loop between: the start
   * asks it of every vhost once it answers requests, which must not wait behind 1,000 stats.
   */
  protected async touchedSinceStamped(names: readonly string[]): Promise<Map<string, FileMark>> {
    // every file looked at, none taken on its stamp's word (the start's pass may still take them)
    this.stopTakingStamps();
    const stamps = await this.stamps?.view();
    const touched = new Map<string, FileMark>();
    for (const [i, name] of names.entries()) {
      if (i > 0 && i % LOOKS_PER_TURN === 0) await nextTurn();
      const mark = this.markOf(name);
      if (mark !== null && !stamps?.untouched(name, mark)) touched.set(name, mark);
    }
    return touched;
  }

  /**
   * A vhost is being written: every later question of the pass looks at the files again, a
   * stamped one too (nginx's test reads every file, so a hand edit must be found before it).
   */
  protected forgetMarks(): void {
    this.#passMarks?.clear();
    this.#stampsTaken = null;
  }

  /** Ends the stamps' word in this pass (forgetMarks); whether the pass had taken it. */
  protected stopTakingStamps(): boolean {
    const taken = this.#stampsTaken !== null;
    this.forgetMarks();
    return taken;
  }

  deferLook(look: () => Promise<unknown>): void {
    this.#look.defer(look);
  }

  lookNow(): Promise<unknown> {
    return this.#look.now();
  }

  dropLook(): Promise<unknown> {
    return this.#look.drop();
  }

  /** `write` (a change, refresh or reload of vhosts, so nginx reads every file) after the start's look when one is left. */
  protected afterLook<T>(write: () => Promise<T>): Promise<T> {
    return this.#look.before(write);
  }

  /**
   * A refresh (`run`), after the start's look when one is left; at once for the look's own refresh
   * (`touchedOnly`: it must not wait for itself) and for the start's refresh in its pass, which looks
   * at the rest itself when it has anything to write.
   */
  protected refreshAfterLook<T>(touchedOnly: boolean, run: () => Promise<T>): Promise<T> {
    return touchedOnly || this.#stampsTaken !== null ? run() : this.#look.before(run);
  }

  async linkPlaces(): Promise<LinkPlaces> {
    const [enabled, routed] = await Promise.all([this.namesIn(this.dirs.enabledDir), this.namesIn(this.dirs.routesDir)]);
    return { enabled: new Set(enabled), routes: new Set(routed) };
  }

  /**
   * The directory's names. Listings asked at the same instant (in one synchronous run: the start's
   * tunnel repair asks `list` and `linkPlaces` together, the link directories twice, 1,000 names
   * each) share one read; a listing asked later reads again, so it sees every write before it.
   */
  protected namesIn(dir: string): Promise<string[]> {
    let listing = this.#listings.get(dir);
    if (!listing) {
      listing = namesIn(dir);
      this.#listings.set(dir, listing);
      queueMicrotask(() => this.#listings.delete(dir));
    }
    return listing;
  }

  /** The file's text, or null when it is gone or untouched since the panel wrote it (so not edited). */
  private async textUnlessUntouched(name: string): Promise<string | null> {
    if (this.stamps && (await this.stamps.untouched(name, this.markOf(name)))) return null;
    return readOrNull(this.available(name));
  }

  protected available(name: string): string {
    return this.#availablePrefix + name;
  }

  protected enabled(name: string): string {
    return join(this.dirs.enabledDir, name);
  }

  /** A route's link: in the routes directory. */
  protected routeLink(name: string): string {
    return join(this.dirs.routesDir, name);
  }

  protected async isLinked(name: string): Promise<boolean> {
    return (await entryExists(this.enabled(name))) || entryExists(this.routeLink(name));
  }

  /** The names linked in sites-enabled or the routes directory, in two listings: a change of 1,000 vhosts asked 1,000 lstats. */
  protected async linkedNames(): Promise<Set<string>> {
    const [enabled, routed] = await Promise.all([this.namesIn(this.dirs.enabledDir), this.namesIn(this.dirs.routesDir)]);
    return new Set([...enabled, ...routed]);
  }

  /** The names linked in the routes directory. */
  protected async routedNames(): Promise<Set<string>> {
    return new Set(await this.namesIn(this.dirs.routesDir));
  }
}

function editedMark(text: string | null): { edited?: true } {
  return text === null || vhostIntact(text) ? {} : { edited: true };
}

/** File names in a directory; none when it does not exist yet. */
async function namesIn(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (e) {
    ignoreMissing(e);
    return [];
  }
}

export function ignoreMissing(e: unknown): void {
  if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
}
