/** Writes `entry` bundled for `target` (`node`: Node, Bun, Deno; `worker`: workerd) to `outfile`. */
export declare function bundleFor(target: 'node' | 'worker', entry: string, outfile: string): Promise<void>;
