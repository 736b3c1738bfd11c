import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { escapeXml } from '../../markup-escape.ts';
import { storeUploads } from './upload.ts';

// A new site's index.html: a plain page naming the site, so that it answers something the moment
// it is live (as Portlama's and Nginx Proxy Manager's do) instead of nginx's 403 for an empty folder.

const PLACEHOLDER = 'index.html';

/** Site names are [a-z0-9-] today; escaping keeps the page safe if that rule ever widens (the XML escapes are valid HTML 5 too). */
export function placeholderPage(siteName: string): string {
  const name = escapeXml(siteName);
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${name}</title></head>
<body>
<h1>${name}</h1>
<p>This site has no files yet. Upload an index.html to replace this page.</p>
</body>
</html>
`;
}

/**
 * Writes the page through the upload path (temp name, rename, mode 0644), so it is a file like any
 * upload and the first upload of an index.html simply renames over it.
 */
export async function writePlaceholder(root: string, siteName: string): Promise<void> {
  const bytes = new TextEncoder().encode(placeholderPage(siteName));
  await storeUploads(root, '.', [{ originalName: PLACEHOLDER, path: undefined, stream: () => new Blob([bytes]).stream() }]);
}

/**
 * The bytes of the placeholder while it is still the site's index.html, else 0: totalSize is the
 * spec's "bytes of uploaded files", and the panel's own page must never push a site over its limit.
 */
export async function placeholderBytes(root: string, siteName: string): Promise<number> {
  const page = Buffer.from(placeholderPage(siteName));
  const path = join(root, PLACEHOLDER);
  const info = await stat(path).catch(() => undefined);
  // the size rules out almost every upload before a read
  if (!info?.isFile() || info.size !== page.length) return 0;
  return (await readFile(path)).equals(page) ? page.length : 0;
}
