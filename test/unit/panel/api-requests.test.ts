// What the panel sends is typed from the route it reaches (handlers/index.ts): the JSON body is the
// body schema's input type and the query the query schema's, so a field a route does not take, a
// required one left out, a body on a route that reads none, or a query string written by hand fails
// `tsc` (the @ts-expect-error lines below are themselves errors once the types go loose). The
// runtime cases check that what was typed is what goes on the wire.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { api, withQuery } from '../../../panel/src/api.ts';

const s = suite('panel: requests typed from the routes');

export function sendsOnlyWhatRoutesTake(): unknown[] {
  return [
    () => api('POST', '/api/tunnels', { subdomain: 'grafana', port: 3000 }),
    // @ts-expect-error a field the tunnel schema does not take
    () => api('POST', '/api/tunnels', { subdomain: 'grafana', port: 3000, hostname: 'x' }),
    // @ts-expect-error the required port left out
    () => api('POST', '/api/tunnels', { subdomain: 'grafana' }),
    // @ts-expect-error a body on a route that reads none
    () => api('POST', '/api/settings/2fa/cancel', { code: '123456' }),
    // @ts-expect-error no body where the route requires one
    () => api('POST', '/api/tunnels'),
    () => withQuery('GET', '/api/audit', { limit: 25, actor: 'admin' }),
    // @ts-expect-error a query field the audit route does not take
    () => withQuery('GET', '/api/audit', { author: 'admin' }),
    // @ts-expect-error a query on a route that reads none
    () => withQuery('GET', '/api/tunnels', { page: 2 }),
    // @ts-expect-error a query string written by hand is not an API URL
    () => api('GET', '/api/audit?limit=25'),
  ];
}

s('withQuery puts the given values in the URL and leaves out undefined ones', () => {
  assert.is(withQuery('GET', '/api/audit', { limit: 25, actor: 'a b', since: undefined }), '/api/audit?limit=25&actor=a+b');
  assert.is(withQuery('GET', '/api/plugins/push-install/sessions', { label: undefined }), '/api/plugins/push-install/sessions');
});

s('api sends the typed body as JSON, and none when the route takes none', async () => {
  const sent: { url: string; method?: string; body?: unknown; type?: string | null }[] = [];
  const realFetch = globalThis.fetch;
  globalThis.fetch = (async (url: string, init: RequestInit) => {
    sent.push({ url, method: init.method, body: init.body, type: new Headers(init.headers).get('content-type') });
    return new Response('{"ok":true}', { status: 200 });
  }) as typeof fetch;
  try {
    await api('PATCH', '/api/tunnels/t1', { enabled: false });
    await api('POST', '/api/settings/2fa/cancel');
  } finally {
    globalThis.fetch = realFetch;
  }
  assert.equal(sent, [
    { url: '/api/tunnels/t1', method: 'PATCH', body: '{"enabled":false}', type: 'application/json' },
    { url: '/api/settings/2fa/cancel', method: 'POST', body: undefined, type: null },
  ]);
});

s.run();
