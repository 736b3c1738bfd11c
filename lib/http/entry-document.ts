import { html } from './responses.ts';

const BUILT_IN_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>relay-panel</title></head>
<body><h1>relay-panel</h1><p>The API is running. The panel client is not installed here
(set <code>staticDir</code> in the configuration). Health: <a href="/api/health">/api/health</a>.</p></body></html>
`;

/** The page non-API reads get when no client is installed (or no edge serves its files). */
export const builtInEntryDocument = async (): Promise<Response> => html(BUILT_IN_PAGE, 200, { 'cache-control': 'no-cache' });
