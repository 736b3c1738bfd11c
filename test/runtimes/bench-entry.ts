// Entry bundled for Node, Bun and Deno: the cost figures (bench-kit.ts) as one JSON line on
// stdout; the first argument is the number of measured requests of each kind.
import { measure } from './bench-kit.ts';

console.log(JSON.stringify(await measure(Number(process.argv[2] ?? 2000))));
