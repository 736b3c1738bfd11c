// A parallel worker of test/run.mjs: takes one test file at a time over IPC, runs its suites and
// sends back what they printed and their counts.
//
// While a file runs, the IPC channel does not hold the event loop open, so a suite whose promise
// never settles ends this process (as it ends the serial runner) instead of hanging it; the runner
// sees the process go with a file unfinished.
import { writeSync } from 'node:fs';
import { relative } from 'node:path';
import { runSuites } from './suites.mjs';

const root = process.argv[2];

// uvu and the tests print through process.stdout/stderr: each chunk goes to the runner, which
// prints a file's output in one piece once the file is done (or the worker died).
for (const stream of [process.stdout, process.stderr]) {
  stream.write = (chunk, encoding, callback) => {
    process.send({ type: 'output', text: String(chunk) });
    if (typeof encoding === 'function') encoding();
    else if (typeof callback === 'function') callback();
    return true;
  };
}

// started with --no-warnings: a warning (a file handle closed by the collector, a deprecation) goes
// into the block of the file that is running, in node's own format, instead of between blocks
process.on('warning', (warning) => {
  process.stderr.write(`(node:${process.pid}) ${warning.code ? `[${warning.code}] ` : ''}${warning.name}: ${warning.message}\n`);
});

// what is open that a test could have left: its own stdout and stderr show as TTYWrap or PipeWrap,
// a leaked server or socket as TCP*Wrap
function openResources() {
  const counts = new Map();
  for (const r of process.getActiveResourcesInfo()) {
    if (!['TTYWrap', 'PipeWrap', 'Timeout'].includes(r)) counts.set(r, (counts.get(r) ?? 0) + 1);
  }
  return counts;
}

// which file left what: the names of open handles do not say which test made them
const leftByFile = [];
let openBefore = openResources();
function noteWhatFileLeft(file) {
  const openAfter = openResources();
  const added = [...openAfter].filter(([name, count]) => count > (openBefore.get(name) ?? 0))
    .map(([name, count]) => `${name} ×${count - (openBefore.get(name) ?? 0)}`);
  if (added.length) leftByFile.push(`${relative(root, file)} (${added.join(', ')})`);
  openBefore = openAfter;
}

process.on('message', async ({ file }) => {
  process.channel.unref();
  const cpuBefore = process.cpuUsage();
  try {
    const counts = await runSuites([file], root, (text) => process.stdout.write(text));
    process.channel.ref();
    noteWhatFileLeft(file);
    const { user, system } = process.cpuUsage(cpuBefore);
    process.send({ type: 'done', file, counts, cpuMs: (user + system) / 1000 });
  } catch (error) {
    // a file that does not load: the runner reports the worker's end with this file unfinished
    process.send({ type: 'output', text: `\n${error?.stack ?? error}\n` }, () => process.exit(1));
  }
});

// The runner disconnects once every file it gave is done and reported. What a test left open (a
// server it never closed) would keep this process, and so the whole run, waiting for ever (a CI
// run hung on three listening servers of a unit worker): name it and go.
process.on('disconnect', () => {
  const left = [...openResources()].map(([name, count]) => `${name} ×${count}`);
  if (left.length) {
    writeSync(2, `run-worker ${process.pid}: still open after its last file, left by a test: ${left.join(', ')}; opened by ${leftByFile.join('; ') || 'no file while it ran (closing late)'}\n`);
  }
  process.exit(0);
});

process.send({ type: 'ready' });
