// One request to the root helper, as any caller could send it: the document on stdin goes to the
// socket named by argv; the answer is printed; exit 0 when it says ok, else 1 with its error on stderr.
import { createConnection } from 'node:net';

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const conn = createConnection(process.argv[2]);
let answer = '';
conn.on('data', (d) => (answer += d));
conn.on('error', (e) => {
  process.stderr.write(`${e.code ?? e.message}\n`);
  process.exit(1);
});
conn.on('end', () => {
  const parsed = JSON.parse(answer);
  process.stdout.write(`${answer}\n`);
  if (!parsed.ok) process.stderr.write(`${parsed.error}\n`);
  process.exit(parsed.ok ? 0 : 1);
});
conn.end(Buffer.concat(chunks));
