// `npm run typecheck` and the first step of `npm test`: the server's and the panel's type checks at
// once. The panel's is a build (`-b`): it reads the route types as declarations of the contract
// project (tsconfig.contract.json, handlers/ and lib/, written to .cache/contract and rebuilt only
// when a server file changed), so a panel edit re-checks the panel alone.
import { execFile } from 'node:child_process';
import { TSC } from './typescript-compiler.mjs';

const projects = [['--noEmit'], ['-b', 'panel']];
const results = await Promise.all(
  projects.map((args) => new Promise((resolve) => {
    execFile(process.execPath, [TSC, ...args], { maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => resolve({ args, error, output: stdout + stderr }));
  })),
);
for (const { args, error, output } of results) {
  if (output.trim()) process.stdout.write(`tsc ${args.join(' ')}:\n${output}`);
  if (error) process.exitCode = 1;
}
