// Where the TypeScript compiler is, for the builds and tests that run it as a program
// (node <path> -p ...). typescript's exports map does not list bin/tsc, so it cannot be resolved
// by name; this is the one place that knows the path.
import { fileURLToPath } from 'node:url';

export const TSC = fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url));
