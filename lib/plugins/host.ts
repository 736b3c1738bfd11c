/**
 * What the plugin service needs from the HTTP core, handed in by the composition root (lib/main.ts,
 * lib/testing.ts) so lib/plugins never imports lib/http. lib/http/plugin-host.ts makes one.
 */
export interface PluginHost {
  /** First path segments the built-in routes use under /api/: no plugin may be named after one. */
  readonly reservedNames: ReadonlySet<string>;
  /** Validates the module's exported routes and mounts them under /api/<name>/; throws an Error naming the problem. */
  mount(plugin: LoadedPlugin): void;
  unmount(name: string): boolean;
}

export interface LoadedPlugin {
  name: string;
  /** The manifest's capabilities: the only ones a route may let agents in with. */
  capabilities: readonly string[];
  /** The server module's namespace, as `import()` returned it. */
  module: unknown;
  /** The panel bundle, served at /api/<name>/panel.js; null without one. */
  panel: Uint8Array<ArrayBuffer> | null;
}
