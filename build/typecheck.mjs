// `npm run typecheck` and the first step of `npm test`: the server's and the panel's type checks at
// once (each is a single-threaded tsc; the panel's reads the server's route types too, so run one
// after the other they cost the sum of two long runs).
import { execFile } from 'node:child_process';
import { TSC } from './typescript-compiler.mjs';

const projects = [['--noEmit'], ['--noEmit', '-p', 'panel']];
const results = await Promise.all(
  projects.map((args) => new Promise((resolve) => {
    execFile(process.execPath, [TSC, ...args], { maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => resolve({ args, error, output: stdout + stderr }));
  })),
);
for (const { args, error, output } of results) {
  if (output.trim()) process.stdout.write(`tsc ${args.join(' ')}:\n${output}`);
  if (error) process.exitCode = 1;
}
