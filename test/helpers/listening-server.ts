// A server a test starts as a child process (the built launcher, the snapshot's start script,
// lib/cli.ts through the TypeScript hooks), resolved once it prints its `listening on` line.
import { spawn, type ChildProcess } from 'node:child_process';

export interface ListeningServer {
  child: ChildProcess;
  /** from its `listening on <url>` line */
  url: string;
  /** what it printed so far, standard output and error together */
  output(): string;
  /** its exit: the code, or the signal that ended it */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Runs `command` with `args` in `cwd` with `env` over this process's environment; rejects with its output when it exits before listening. */
export function startListening(command: string, args: readonly string[], { env = {}, cwd }: { env?: NodeJS.ProcessEnv; cwd: string }): Promise<ListeningServer> {
  const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  let out = '';
  const output = () => out;
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.stderr!.on('data', (chunk) => (out += chunk));
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      if (url) resolve({ child, url, output, exited });
    });
    void exited.then(({ code, signal }) => reject(new Error(`${command} exited ${code ?? signal} before listening: ${out}`)));
  });
}

/** The built launcher (dist/server.mjs) run by this node. */
export const startBundle = (outfile: string, args: readonly string[], env: NodeJS.ProcessEnv, cwd: string) =>
  startListening(process.execPath, [outfile, ...args], { env, cwd });

/** SIGTERM, then its exit code. */
export async function stopServer(server: ListeningServer): Promise<number | null> {
  server.child.kill('SIGTERM');
  return (await server.exited).code;
}
