import { posix } from 'node:path';
import { list, type ReadEntry } from 'tar';
import type { ZodType } from 'zod';
import { ConfigSchema, type Config } from '../config.ts';
import { AppError, errorMessage } from '../errors.ts';
import { describeZodIssues } from '../state/zod-issues.ts';
import { Manifest } from './manifest.ts';
import { CONFIG_ENTRY, MANIFEST_ENTRY } from './sections.ts';

/** The manifest and the configuration file are small; anything bigger is not ours. */
const MAX_DOCUMENT_BYTES = 1024 * 1024;
const ENTRY_TYPES = new Set(['File', 'OldFile', 'Directory', 'SymbolicLink', 'Link']);

export interface VerifiedArchive {
  manifest: Manifest;
  config: Config;
}

const refuse = (why: string) => new AppError(400, `Not a usable relay-panel backup: ${why}`);

/** `a/b/` -> `a/b`; null for an absolute path or one that climbs out with `..`. */
function safePath(path: string): string | null {
  if (path.startsWith('/') || path.includes('\\')) return null;
  const normal = posix.normalize(path).replace(/\/+$/, '');
  if (normal === '..' || normal.startsWith('../') || normal === '.' || normal === '') return null;
  return path.split('/').includes('..') ? null : normal;
}

/**
 * Reads the whole archive once, writing nothing: it must be a gzipped tar whose first entry is
 * our manifest, holding a valid configuration, and whose every other entry is a file, directory
 * or link inside a section the manifest names (links may not point out of their section).
 */
export async function verifyArchive(file: string): Promise<VerifiedArchive> {
  const problems: string[] = [];
  const documents = new Map<string, string>();
  let first: string | null = null;
  const entries: { path: string; section: string; entry: Pick<ReadEntry, 'type' | 'linkpath'> }[] = [];

  const onReadEntry = (entry: ReadEntry) => {
    const path = safePath(entry.path);
    first ??= path ?? entry.path;
    if (path === null) return void problems.push(`unsafe entry path '${entry.path}'`);
    if (!ENTRY_TYPES.has(entry.type)) return void problems.push(`'${path}' is a ${entry.type}`);
    if (path === MANIFEST_ENTRY || path === CONFIG_ENTRY) {
      if (entry.size > MAX_DOCUMENT_BYTES) return void problems.push(`'${path}' is too large`);
      let text = '';
      entry.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      entry.on('end', () => documents.set(path, text));
      return;
    }
    entries.push({ path, section: path.split('/')[0]!, entry: { type: entry.type, linkpath: entry.linkpath } });
  };
  try {
    await list({ file, strict: true, onReadEntry });
  } catch (error) {
    throw refuse(`the archive cannot be read (${errorMessage(error)})`);
  }
  if (first !== MANIFEST_ENTRY) throw refuse(`the first entry is not ${MANIFEST_ENTRY}`);
  if (problems.length > 0) throw refuse(problems.slice(0, 5).join('; '));

  const manifest = parseDocument(documents.get(MANIFEST_ENTRY), MANIFEST_ENTRY, Manifest);
  const config = parseDocument(documents.get(CONFIG_ENTRY), CONFIG_ENTRY, ConfigSchema as ZodType<Config>);
  const sections = new Set<string>(manifest.sections);
  for (const { path, section, entry } of entries) {
    if (!sections.has(section)) throw refuse(`'${path}' is in no section of the manifest`);
    if (entry.type !== 'SymbolicLink' && entry.type !== 'Link') continue;
    const target = entry.linkpath ?? '';
    const resolved = entry.type === 'Link' ? safePath(target) : safePath(posix.join(posix.dirname(path), target));
    if (target.startsWith('/') || resolved === null || !resolved.startsWith(`${section}/`)) throw refuse(`the link '${path}' points out of its section`);
  }
  return { manifest, config };
}

function parseDocument<T>(text: string | undefined, name: string, schema: ZodType<T>): T {
  if (text === undefined) throw refuse(`${name} is missing`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw refuse(`${name} is not JSON`);
  }
  const result = schema.safeParse(value);
  if (!result.success) throw refuse(`${name}: ${describeZodIssues(result.error.issues)}`);
  return result.data;
}
