// Entry bundled for Node, Bun and Deno: the scenario's answers on stdout (`sweep`: the status of
// every GET route instead).
import { runScenario, runSweep } from './run-kit.ts';

console.log(process.argv[2] === 'sweep' ? await runSweep() : await runScenario());
