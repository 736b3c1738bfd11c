// The limits read certbot's archive on every count and every order: a lineage whose directory is
// unchanged is not read again, a changed one parses only its new versions, and a version that could
// not be parsed yet is tried again.
import { mkdir, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { archiveReader } from '../../../../lib/system/certs/archive.ts';

const HOUR = 3600_000;
const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An archive whose "certificates" hold their names as text; namesOf counts each file it parses. */
async function archive() {
  const dir = await mkdtemp(join(tmpdir(), 'relay-archive-'));
  const parsed: string[] = [];
  const namesOf = async (path: string) => {
    parsed.push(path.slice(dir.length + 1));
    const text = await readFile(path, 'utf8');
    return text === '' ? null : text.split(',');
  };
  const put = async (lineage: string, version: number, names: string, at: number) => {
    await mkdir(join(dir, lineage), { recursive: true });
    const path = join(dir, lineage, `cert${version}.pem`);
    await writeFile(path, names);
    await utimes(path, at / 1000, at / 1000);
    await utimes(join(dir, lineage), at / 1000, at / 1000);
  };
  return { dir, parsed, namesOf, put };
}

const s = suite('certificate archive: reads remembered per lineage');

s('an unchanged lineage is not read again; a changed one parses only its new version', async () => {
  const { dir, parsed, namesOf, put } = await archive();
  try {
    const now = Date.now();
    await put('a.example', 1, 'a.example', now - 3 * HOUR);
    await put('a.example', 2, 'a.example', now - 2 * HOUR);
    await put('b.example', 1, 'b.example', now - HOUR);
    // settled at once: the directories' change times are the real clock's, a few ms old here
    const read = archiveReader(namesOf, 0);
    const since = now - 24 * HOUR;
    const first = await read(dir, since);
    assert.equal(first.map((v) => [v.lineage, v.version, v.renewal]), [['a.example', 1, false], ['a.example', 2, true], ['b.example', 1, false]]);
    assert.equal(parsed.sort(), ['a.example/cert1.pem', 'a.example/cert2.pem', 'b.example/cert1.pem'], 'version 1 parsed once, not again as version 2\'s previous');

    parsed.length = 0;
    assert.equal(await read(dir, since + 1), first, 'the same answer');
    assert.equal(parsed, [], 'nothing parsed again');

    await tick(20);
    await put('b.example', 2, 'b.example', now);
    const third = await read(dir, since + 2);
    assert.equal(third.map((v) => [v.lineage, v.version, v.renewal]), [['a.example', 1, false], ['a.example', 2, true], ['b.example', 1, false], ['b.example', 2, true]]);
    assert.equal(parsed, ['b.example/cert2.pem'], 'the new version alone: a.example unchanged, b.example\'s version 1 known');

    parsed.length = 0;
    assert.equal((await read(dir, now - 150 * 60_000)).map((v) => [v.lineage, v.version]), [['a.example', 2], ['b.example', 1], ['b.example', 2]], 'a narrower window drops what left it');
    assert.equal(parsed, []);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

s('a version not parsed yet (certbot still writing it) is tried again on the next read', async () => {
  const { dir, parsed, namesOf, put } = await archive();
  try {
    const now = Date.now();
    await put('c.example', 1, '', now - HOUR);
    const read = archiveReader(namesOf, 0);
    assert.equal(await read(dir, 0), [], 'not parsed: skipped');
    await writeFile(join(dir, 'c.example', 'cert1.pem'), 'c.example');
    assert.equal((await read(dir, 0)).map((v) => v.names), [['c.example']], 'parsed on the next read');
    assert.equal(parsed, ['c.example/cert1.pem', 'c.example/cert1.pem']);

  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

s.run();
