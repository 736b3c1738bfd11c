import { readdir, readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Everything a collection has on disk, snapshot and journals, as one text: for "this secret is
 * never stored" checks, which must look at the journal as well as the snapshot.
 */
export async function storedText(collection: { file: string; flush(): Promise<void> }): Promise<string> {
  await collection.flush();
  const stem = basename(collection.file).replace(/\.json$/, '');
  const names = (await readdir(dirname(collection.file))).filter((n) => n === `${stem}.json` || (n.startsWith(`${stem}.`) && n.endsWith('.journal')));
  const texts = await Promise.all(names.map((n) => readFile(join(dirname(collection.file), n), 'utf8')));
  if (texts.length === 0) throw new Error(`nothing on disk for ${collection.file}`);
  return texts.join('\n');
}
