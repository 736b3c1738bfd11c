/**
 * Headers of every client page and asset. A browser presents the admin certificate inside a frame
 * too, so another site must not frame the panel (clickjacking); an invitation page's path holds its
 * token, which a followed link must not carry away in its Referer.
 */
const PAGE_HEADERS: ReadonlyArray<[string, string]> = [
  ['x-frame-options', 'DENY'],
  ['content-security-policy', "frame-ancestors 'none'"],
  ['referrer-policy', 'no-referrer'],
  ['x-content-type-options', 'nosniff'],
];

export function withPageHeaders(response: Response): Response {
  for (const [name, value] of PAGE_HEADERS) response.headers.set(name, value);
  return response;
}
