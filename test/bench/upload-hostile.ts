// `npm run bench -- --only=upload-hostile`: one 50 MB file part whose bytes are
// plain ('x') or the multipart delimiter's own ('\r', '-'), parsed by formidable as the Node edge
// used it before (the before) and by the edge's parser now (lib/node/multipart.ts, the after),
// interleaved in one run: MB/s, CPU and the longest event-loop stall of each, with the load average.
// Run alone: node --import ./test/helpers/register.mjs test/bench/upload-hostile.ts [--mb=50] [--before-cr-mb=1]
import { mkdtemp, rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import formidable from 'formidable';
import { streamMultipart } from '../../lib/node/multipart.ts';

const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const MB = 1024 * 1024;
const SIZE = arg('mb', 50) * MB;
/** formidable parses a '\r' body at about 0.1 MB/s: it gets this many MB of one, and its figures per 50 MB are scaled from them. */
const BEFORE_CR_MB = arg('before-cr-mb', 1);
const BOUNDARY = 'relayboundary';
const PIECE = 64 * 1024; // what a socket read hands the parser
const head = Buffer.from(`--${BOUNDARY}\r\ncontent-disposition: form-data; name="file"; filename="big.bin"\r\ncontent-type: application/octet-stream\r\n\r\n`);
const closing = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);

function request(byte: number, size: number): IncomingMessage {
  function* pieces(): Generator<Buffer> {
    yield head;
    const piece = Buffer.alloc(PIECE, byte);
    for (let fed = 0; fed < size; fed += PIECE) yield piece.subarray(0, Math.min(PIECE, size - fed));
    yield closing;
  }
  const headers = { 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'content-length': String(head.length + size + closing.length) };
  return Object.assign(Readable.from(pieces(), { objectMode: false }), { headers, complete: true }) as unknown as IncomingMessage;
}

type Parser = (req: IncomingMessage) => Promise<void>;

const before: Parser = async (req) => {
  const dir = await mkdtemp(join(tmpdir(), 'relay-bench-upload-'));
  try {
    await formidable({ uploadDir: dir, maxFileSize: 2 * SIZE, maxTotalFileSize: 2 * SIZE, allowEmptyFiles: true, minFileSize: 0 }).parse(req);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};

const after: Parser = async (req) => {
  const parsed = await streamMultipart(req, { maxFileBytes: 2 * SIZE, maxTotalBytes: 2 * SIZE, maxFiles: 1 });
  await parsed.cleanup();
};

async function measure(parser: Parser, byte: number, size: number) {
  const lag = monitorEventLoopDelay({ resolution: 5 });
  const load = loadavg()[0]!.toFixed(2);
  const started = performance.now();
  const cpu = process.cpuUsage();
  lag.enable();
  await parser(request(byte, size));
  lag.disable();
  const used = process.cpuUsage(cpu);
  const seconds = (performance.now() - started) / 1000;
  const mb = size / MB;
  return { mb, mbPerS: mb / seconds, cpuS: (used.user + used.system) / 1e6, cpuSPer50: ((used.user + used.system) / 1e6) * (50 / mb), maxLagMs: lag.max / 1e6, load };
}

const bodies = [
  ['plain', 120],
  ["'\\r'", 13],
  ["'-'", 45],
] as const;
console.log(`upload-hostile: one ${SIZE / MB} MB file part in 64 KiB pieces (formidable: ${BEFORE_CR_MB} MB of '\\r', scaled to 50 MB)`);
console.log('| body | parser | MB | MB/s | CPU s | CPU s per 50 MB | hostile/plain CPU | max event-loop delay | load (1 min) |');
console.log('|---|---|---|---|---|---|---|---|---|');
for (const parser of [before, after]) await parser(request(120, 4 * MB)); // warms both paths
const plainCpu: Record<string, number> = {};
for (const [label, byte] of bodies) {
  for (const [name, parser] of [['before (formidable)', before], ['after (delimiter scan)', after]] as const) {
    const r = await measure(parser, byte, parser === before && byte === 13 ? BEFORE_CR_MB * MB : SIZE);
    if (byte === 120) plainCpu[name] = r.cpuSPer50;
    const ratio = (r.cpuSPer50 / plainCpu[name]!).toFixed(1);
    console.log(
      `| ${label} | ${name} | ${r.mb.toFixed(1)} | ${r.mbPerS.toFixed(1)} | ${r.cpuS.toFixed(2)} | ${r.cpuSPer50.toFixed(2)} | ${ratio}× | ${r.maxLagMs.toFixed(0)} ms | ${r.load} |`,
    );
  }
}
