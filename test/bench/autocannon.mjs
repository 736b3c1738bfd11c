// autocannon, the bench's load generator, from the pinned tools cache (test/runtimes/tools): it is
// not in the project's package.json, so `npm install` stays what the panel and its tests need.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ensureRuntimes } from '../runtimes/fetch-runtimes.mjs';

const { dir } = await ensureRuntimes();
const fromCache = createRequire(join(dir, 'package.json'));

export const autocannon = fromCache('autocannon');
export const autocannonVersion = JSON.parse(await readFile(fromCache.resolve('autocannon/package.json'), 'utf8')).version;
