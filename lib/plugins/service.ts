import { randomUUID } from 'node:crypto';
import { access, readFile, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Clock } from '../clock.ts';
import type { ConfigStore } from '../config.ts';
import { AppError, badRequest, errorMessage } from '../errors.ts';
import { importModule } from '../import-module.ts';
import { jsonBytes } from '../json-bytes.ts';
import { serialQueue } from '../keyed-lock.ts';
import type { Logger } from '../log.ts';
import type { Mode } from '../mode.ts';
import type { PluginRecord } from '../state/schemas.ts';
import type { Store } from '../state/store.ts';
import type { PluginHost } from './host.ts';
import { readManifest, type InstalledPackage } from './manifest.ts';
import { npmInstall } from './npm.ts';
import type { PluginSettings } from './scopes.ts';
import { checkSpec } from './spec.ts';

export interface PluginDeps {
  mode: Mode;
  config: ConfigStore;
  store: Store;
  clock: Clock;
  log: Logger;
}

const NO_HOST: PluginHost = {
  reservedNames: new Set(),
  mount: () => {
    throw new Error('plugins cannot be mounted before the HTTP core is attached');
  },
  unmount: () => false,
};

/**
 * Import URLs get a fresh query each time, so a re-enabled or reinstalled plugin is loaded anew;
 * counted per process, since node caches modules per process (several panels in one test run).
 */
let loads = 0;

/**
 * Installed plugins: npm packages under the plugins folder (one npm prefix each), their records in
 * the store, and the routes of the enabled ones mounted live through the host.
 */
export class PluginService {
  readonly listJson: () => Uint8Array<ArrayBuffer>;
  /** The capabilities of the enabled plugins, for the agent capability set. */
  readonly capabilityNames: () => ReadonlySet<string>;
  #host = NO_HOST;
  readonly #queue = serialQueue();

  constructor(private readonly deps: PluginDeps) {
    this.listJson = deps.store.plugins.memo((plugins) => jsonBytes({ plugins: [...plugins].sort((a, b) => a.name.localeCompare(b.name)) }));
    this.capabilityNames = deps.store.plugins.memo((plugins) => new Set(plugins.filter((p) => p.status === 'enabled').flatMap((p) => p.capabilities)));
  }

  get dir(): string {
    return this.deps.config.value.plugins.dir ?? join(this.deps.store.dataDir, 'plugins');
  }

  /**
   * Connects the HTTP core and mounts the plugins left enabled. One that no longer loads is logged
   * and recorded as disabled: the panel starts without it.
   */
  async attach(host: PluginHost): Promise<void> {
    this.#host = host;
    for (const plugin of this.deps.store.plugins.value.filter((p) => p.status === 'enabled')) {
      try {
        await this.#mount(plugin);
      } catch (error) {
        this.deps.log.error(`plugin ${plugin.name} was not mounted: ${errorMessage(error)}`);
        await this.#setStatus(plugin.name, 'disabled');
      }
    }
  }

  /** Which npm scopes may be installed from the registry (`plugins.allowedScopes`). */
  settings(): PluginSettings {
    return { allowedScopes: [...this.deps.config.value.plugins.allowedScopes] };
  }

  /**
   * Replaces the allowed scopes, kept in the configuration file like the other settings an admin
   * changes at run time; the next install is checked against them. Installed plugins stay.
   */
  async updateSettings(update: PluginSettings): Promise<PluginSettings> {
    const allowedScopes = [...new Set(update.allowedScopes)];
    await this.deps.config.update({ plugins: { ...this.deps.config.value.plugins, allowedScopes } });
    this.deps.log.info(`Plugins: allowed scopes ${allowedScopes.join(', ') || '(none)'}`);
    return this.settings();
  }

  get(name: string): PluginRecord {
    const plugin = this.deps.store.plugins.get(name);
    if (!plugin) throw new AppError(404, `Plugin '${name}' not found`);
    return plugin;
  }

  install(spec: string): Promise<PluginRecord> {
    return this.#queue(async () => {
      const { allowedScopes, localDir } = this.deps.config.value.plugins;
      const checked = await checkSpec(spec, { allowedScopes, localDir, anyTarball: this.deps.mode === 'development' });
      const staging = join(this.dir, `.staging-${randomUUID()}`);
      try {
        const packageName = await npmInstall(this.#npm(), staging, checked);
        const installed = await this.#readPackage(staging, packageName);
        const { name } = installed.manifest;
        if (this.deps.store.plugins.has(name)) throw new AppError(409, `Plugin '${name}' is already installed`);
        await this.#checkFiles(staging, installed);
        const home = join(this.dir, name);
        // a folder left by a crash between this rename and the record below
        await rm(home, { recursive: true, force: true });
        await rename(staging, home);
        const record: PluginRecord = {
          name,
          displayName: installed.manifest.displayName,
          packageName,
          version: installed.version,
          description: installed.description,
          capabilities: installed.manifest.capabilities,
          spec: checked,
          status: 'disabled',
          installedAt: new Date(this.deps.clock.now()).toISOString(),
          enabledAt: null,
        };
        await this.deps.store.plugins.edit((draft) => draft.put(record)).catch(async (error: unknown) => {
          await rm(home, { recursive: true, force: true });
          throw error;
        });
        return record;
      } finally {
        await rm(staging, { recursive: true, force: true });
      }
    });
  }

  enable(name: string): Promise<PluginRecord> {
    return this.#queue(async () => {
      const plugin = this.get(name);
      if (plugin.status === 'enabled') return plugin;
      await this.#mount(plugin);
      try {
        return await this.#setStatus(name, 'enabled');
      } catch (error) {
        this.#host.unmount(name);
        throw error;
      }
    });
  }

  disable(name: string): Promise<PluginRecord> {
    return this.#queue(async () => {
      const plugin = this.get(name);
      if (plugin.status === 'disabled') return plugin;
      this.#host.unmount(name);
      return this.#setStatus(name, 'disabled');
    });
  }

  /** Unmounts (when enabled), forgets the record and removes the files. */
  delete(name: string): Promise<void> {
    return this.#queue(async () => {
      this.get(name);
      this.#host.unmount(name);
      await this.deps.store.plugins.edit((draft) => draft.delete(name));
      await rm(join(this.dir, name), { recursive: true, force: true });
    });
  }

  async #mount(plugin: PluginRecord): Promise<void> {
    const home = join(this.dir, plugin.name);
    const installed = await this.#readPackage(home, plugin.packageName);
    const root = join(home, 'node_modules', plugin.packageName);
    const { server, panel } = installed.manifest;
    let module: unknown;
    try {
      module = await importModule(`${pathToFileURL(join(root, server)).href}?load=${++loads}`);
    } catch (error) {
      throw badRequest(`Plugin '${plugin.name}' failed to load: ${errorMessage(error)}`);
    }
    const panelBytes = panel ? new Uint8Array(await readFile(join(root, panel))) : null;
    try {
      this.#host.mount({ name: plugin.name, capabilities: installed.manifest.capabilities, module, panel: panelBytes });
    } catch (error) {
      throw badRequest(`Plugin '${plugin.name}' cannot be mounted: ${errorMessage(error)}`);
    }
  }

  async #readPackage(prefix: string, packageName: string): Promise<InstalledPackage> {
    const file = join(prefix, 'node_modules', packageName, 'package.json');
    const text = await readFile(file, 'utf8').catch(() => {
      throw badRequest(`Invalid plugin manifest: ${packageName} has no package.json`);
    });
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw badRequest(`Invalid plugin manifest: package.json of ${packageName} is not JSON`);
    }
    return readManifest(parsed, this.#host.reservedNames);
  }

  async #checkFiles(prefix: string, installed: InstalledPackage): Promise<void> {
    const root = join(prefix, 'node_modules', installed.packageName);
    for (const [key, path] of [['server', installed.manifest.server], ['panel', installed.manifest.panel]] as const) {
      if (path === undefined) continue;
      await access(join(root, path)).catch(() => {
        throw badRequest(`Invalid plugin manifest: relayPanel.${key} file ${path} is not in the package`);
      });
    }
  }

  async #setStatus(name: string, status: PluginRecord['status']): Promise<PluginRecord> {
    const enabledAt = status === 'enabled' ? new Date(this.deps.clock.now()).toISOString() : null;
    return this.deps.store.plugins.edit((draft) => {
      const next = { ...this.get(name), status, enabledAt };
      draft.put(next);
      return next;
    });
  }

  #npm(): string {
    return this.deps.config.value.plugins.npm ?? join(dirname(process.execPath), 'npm');
  }
}
