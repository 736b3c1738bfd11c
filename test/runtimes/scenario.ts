// The runtime suite's scenario: the same requests, in the same order, against an app that answers
// `send`. It imports nothing from node:*, so it runs unchanged in Node, Bun, Deno and workerd; each
// runtime prints what it returns and the suite compares the prints byte for byte.

/** One answer as compared across runtimes: the status, the headers a client acts on, the body text. */
export interface Answer {
  step: string;
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type Send = (path: string, init?: RequestInit) => Promise<Response>;
export type Headers = Record<string, string>;

/** Callers' certificate headers, as the kit's `as` gives them. */
export interface Callers {
  admin(): Headers;
  agent(label: string): Headers;
}

/** The agents both parts need, seeded before the first request (a worker has no `as.agent(label, caps)`). */
export const AGENTS = [
  { label: 'reader', capabilities: ['tunnels:read'] },
  { label: 'writer', capabilities: ['tunnels:read', 'tunnels:write'] },
  { label: 'nobody', capabilities: [] },
  { label: 'alice', capabilities: ['chat:send'] },
  { label: 'bob', capabilities: ['chat:send'] },
];

/** A fixed instant for the injected clock: expiresAt and heartbeat times are then the same everywhere. */
export const START = Date.parse('2026-11-22T00:00:00Z');

// Headers a client acts on. `date` is the wall clock and differs per run; nothing else is dropped.
const COMPARED_HEADERS = ['allow', 'cache-control', 'content-security-policy', 'content-type', 'location', 'retry-after', 'www-authenticate', 'x-content-type-options', 'x-frame-options'];

export const CHAT_SCOPE = {
  name: 'chat',
  version: '1.0.0',
  description: 'Messages between agents',
  scopes: [{ name: 'chat:send', description: 'Send messages', instanceScoped: true }],
  transport: { strategies: ['relay', 'direct'], preferred: 'relay', port: 0, protocol: 'wss' },
};
export const INSTANCE = { scope: 'chat:send', transport: { strategies: ['relay', 'direct'], preferred: 'direct', direct: { host: 'alice.example.com', port: 8443 } } };

/** Records answers; `json` returns the parsed body for the next step's ids. */
function recorder(send: Send) {
  const answers: Answer[] = [];
  const call = async (step: string, path: string, headers: Headers, body?: unknown, method = body === undefined ? 'GET' : 'POST') => {
    const init: RequestInit = { method, headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' } };
    if (body !== undefined) init.body = typeof body === 'string' ? body : JSON.stringify(body);
    const response = await send(path, init);
    const text = await response.text();
    const selected: Record<string, string> = {};
    for (const name of COMPARED_HEADERS) {
      const value = response.headers.get(name);
      if (value !== null) selected[name] = value;
    }
    answers.push({ step, status: response.status, headers: selected, body: text });
    return text.startsWith('{') ? JSON.parse(text) : null;
  };
  return { answers, call };
}

/** Scope, instance, assignment, ticket, inbox, validate, session and both heartbeats. */
export async function ticketFlow(send: Send, as: Callers): Promise<Answer[]> {
  const { answers, call } = recorder(send);
  await call('scope', '/api/tickets/scopes', as.admin(), CHAT_SCOPE);
  const instance = await call('instance', '/api/tickets/instances', as.agent('alice'), INSTANCE);
  await call('assignment', '/api/tickets/assignments', as.admin(), { agentLabel: 'bob', instanceScope: instance?.instanceScope });
  const issued = await call('ticket', '/api/tickets', as.agent('alice'), { scope: 'chat:send', instanceId: instance?.instanceId, target: 'bob' });
  await call('inbox', '/api/tickets/inbox', as.agent('bob'));
  const ticketId = issued?.ticket?.id;
  await call('validate', '/api/tickets/validate', as.agent('bob'), { ticketId });
  const session = await call('session', '/api/tickets/sessions', as.agent('bob'), { ticketId });
  await call('session heartbeat', `/api/tickets/sessions/${session?.session?.sessionId}/heartbeat`, as.agent('bob'), {});
  await call('instance heartbeat', `/api/tickets/instances/${instance?.instanceId}/heartbeat`, as.agent('alice'), {});
  return answers;
}

/** Tunnels as admin and agents, a 400 with details.issues, a 404 under /api, the entry document. */
export async function kitFlow(send: Send, as: Callers): Promise<Answer[]> {
  const { answers, call } = recorder(send);
  await call('tunnels as admin', '/api/tunnels', as.admin());
  await call('create as admin', '/api/tunnels', as.admin(), { subdomain: 'app', port: 8080 });
  await call('tunnels as reader', '/api/tunnels', as.agent('reader'));
  await call('create as reader', '/api/tunnels', as.agent('reader'), { subdomain: 'web', port: 8081 });
  await call('tunnels without capability', '/api/tunnels', as.agent('nobody'));
  await call('create as writer', '/api/tunnels', as.agent('writer'), { subdomain: 'web', port: 8081 });
  await call('invalid body', '/api/tunnels', as.admin(), { subdomain: 'Not Valid', port: 80 });
  await call('unknown api path', '/api/no-such-thing', as.admin());
  await call('entry document', '/tunnels', as.admin());
  return answers;
}

/**
 * Ids the app draws from the random source per run (the kit injects the clock, not the ids),
 * replaced by `<hex1>`, `<uuid1>`... in order of first appearance: the same value gets the same
 * stand-in in every runtime's print, so an id the app reuses must still be reused. Times are not
 * replaced: the injected clock fixes them.
 */
export function normalize(answers: Answer[]): Answer[] {
  const seen = new Map<string, string>();
  const counts: Record<string, number> = {};
  const stand = (kind: string) => (value: string) => {
    if (!seen.has(value)) seen.set(value, `<${kind}${(counts[kind] = (counts[kind] ?? 0) + 1)}>`);
    return seen.get(value)!;
  };
  const pattern = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\b[0-9a-f]{32,64}\b/g;
  const replace = (text: string) => text.replace(pattern, (value) => stand(value.includes('-') ? 'uuid' : 'hex')(value));
  return answers.map((a) => ({ ...a, headers: Object.fromEntries(Object.entries(a.headers).map(([k, v]) => [k, replace(v)])), body: replace(a.body) }));
}
