// Entry bundled for Node, Bun and Deno: the scenario's answers on stdout.
import { runScenario } from './run-kit.ts';

console.log(await runScenario());
