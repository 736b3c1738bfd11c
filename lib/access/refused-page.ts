import { escapeXml } from '../markup-escape.ts';

/** The page of a visitor the portal refused: which app, and whom to ask, instead of a bare 403. */
export function refusedPage({ app, contact }: { app: string; contact: string | null }): string {
  const ask = contact
    ? `Ask the administrator, <a href="mailto:${escapeXml(contact)}">${escapeXml(contact)}</a>, to give your account access.`
    : 'Ask the administrator of this relay to give your account access.';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>No access to ${escapeXml(app)}</title></head>
<body style="font-family: sans-serif; max-width: 40em; margin: 3em auto">
<h1>No access to ${escapeXml(app)}</h1>
<p>You are signed in, but your account may not open <strong>${escapeXml(app)}</strong>.</p>
<p>${ask}</p>
</body></html>
`;
}
