export type Runtime = 'node' | 'bun' | 'deno' | 'workerd';
export declare const RUNTIMES: readonly Runtime[];
/** The runtime's binary in `binDir` (.cache/runtimes/node_modules/.bin), or an error that says how to get it. */
export declare function binaryOf(runtime: Exclude<Runtime, 'node'>, binDir?: string): string;
/** The runtime's binary, fetched into .cache/runtimes first if it is not there yet. */
export declare function fetchedBinary(runtime: Exclude<Runtime, 'node'>): Promise<string>;
/** What a Node, Bun or Deno process running the bundle `file` printed on stdout. */
export declare function runScript(runtime: Exclude<Runtime, 'workerd'>, file: string, args?: string[]): Promise<string>;
/** A Worker started in workerd: `fetch` dispatches one request to it, `close` stops workerd. */
export interface StartedWorker {
  fetch(url: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}
export declare function startWorker(file: string): Promise<StartedWorker>;
/** The body of the Worker bundle `file`'s answer to one request, in workerd through miniflare. */
export declare function runWorker(file: string, url?: string): Promise<string>;
/** A script for Node, Bun and Deno (args on its command line), a Worker for workerd (args in the query). */
export declare function runIn(runtime: Runtime, file: string, args?: string[]): Promise<string>;
