// Child process for the crash test: appends numbers in a loop and prints each acknowledged one.
import { z } from 'zod';
import { JsonCollection } from '../../../lib/state/collection.ts';

const [file, startText] = process.argv.slice(2);
const items = await JsonCollection.open({ file, schema: z.array(z.number()), initial: () => [] as number[] });
let next = Number(startText);
for (;;) {
  const batch = [next, next + 1, next + 2];
  next += 3;
  await Promise.all(batch.map((n) => items.update((d) => void d.push(n)).then(() => process.stdout.write(`${n}\n`))));
}
