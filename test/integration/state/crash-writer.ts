// Child process for the crash tests: puts records in batches of concurrent edits, forever, and
// prints the number of each acknowledged one. A small `compactAfterBytes` keeps snapshots being rewritten.
import { z } from 'zod';
import { RecordCollection } from '../../../lib/state/record-collection.ts';

const [file, startText, compactText, padText] = process.argv.slice(2);
if (!file) throw new Error('usage: crash-writer.ts <file> <first number> <compactAfterBytes> <pad length>');
const Item = z.object({ id: z.string(), n: z.number(), pad: z.string() });
const items = await RecordCollection.open({ file, record: Item, key: (item) => item.id, compactAfterBytes: Number(compactText) });
const pad = 'x'.repeat(Number(padText));
let next = Number(startText);
for (;;) {
  const batch = Array.from({ length: 8 }, (_, i) => next + i);
  next += batch.length;
  await Promise.all(batch.map((n) => items.edit((d) => d.put({ id: `n${n}`, n, pad })).then(() => process.stdout.write(`${n}\n`))));
}
