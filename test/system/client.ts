// What an admin's browser or curl does against the box: HTTPS through nginx with a PKCS#12 client
// certificate, to a name (SNI and Host) or to the box's IP, reached through the box's bridge.
import { request } from 'node:https';
import { isIP } from 'node:net';
import WebSocket from 'ws';
import { openStreamWith, type StreamClient } from '../helpers/provision-stream.ts';
import type { Box, BoxPort } from './box.ts';

export interface Identity {
  pfx: Buffer;
  passphrase: string;
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  raw: Buffer;
  body: any;
}

export interface RequestOptions {
  identity?: Identity | null;
  json?: unknown;
  body?: Buffer;
  headers?: Record<string, string>;
  timeoutMs?: number;
}

export interface BoxClient {
  /** `url` names the box as a client would (https://panel.example.test/..., https://203.0.113.10:9292/...) */
  call(method: string, url: string, opts?: RequestOptions): Promise<Answer>;
  stream(url: string, identity: Identity): Promise<StreamClient>;
  /** trust for names under the domain: pebble's root, once onboarding made certificates */
  trust(ca: string): void;
}

export function boxClient(box: Box): BoxClient {
  let ca: string | undefined;
  // a name is checked against pebble's root; the IP panel's self-signed certificate is accepted,
  // as the operator is told to accept it
  const tls = (u: URL, identity?: Identity | null) => ({
    host: '127.0.0.1',
    port: box.hostPort(Number(u.port || 443) as BoxPort),
    ...(isIP(u.hostname) ? { rejectUnauthorized: false } : { servername: u.hostname, ca }),
    ...(identity ? { pfx: identity.pfx, passphrase: identity.passphrase } : {}),
  });
  return {
    trust(root) {
      ca = root;
    },
    call(method, url, opts = {}) {
      const u = new URL(url);
      const body = opts.json !== undefined ? Buffer.from(JSON.stringify(opts.json)) : opts.body;
      return new Promise((resolve, reject) => {
        const req = request({
          ...tls(u, opts.identity), method, path: u.pathname + u.search, agent: false,
          headers: { host: u.host, ...(opts.json !== undefined ? { 'content-type': 'application/json' } : {}), ...opts.headers },
          timeout: opts.timeoutMs ?? 60_000,
        }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const raw = Buffer.concat(chunks);
            const text = raw.toString('utf8');
            let parsed: unknown = null;
            try { parsed = JSON.parse(text); } catch { /* not JSON: text only */ }
            resolve({ status: res.statusCode!, headers: res.headers, text, raw, body: parsed });
          });
          res.on('error', reject);
        });
        req.on('timeout', () => req.destroy(new Error(`${method} ${url}: no answer in time`)));
        req.on('error', reject);
        req.end(body);
      });
    },
    stream(url, identity) {
      const u = new URL(url);
      const target = `wss://127.0.0.1:${box.hostPort(Number(u.port || 443) as BoxPort)}${u.pathname}`;
      return openStreamWith(() => new WebSocket(target, { ...tls(u, identity), headers: { host: u.host } }));
    },
  };
}

/** A multipart body as a browser's FormData sends it (the runtime serializes it, no hand-made parts). */
export async function multipart(files: Record<string, string>): Promise<{ body: Buffer; headers: Record<string, string> }> {
  const form = new FormData();
  for (const [name, content] of Object.entries(files)) form.append('file', new Blob([content]), name);
  const req = new Request('http://form.invalid/', { method: 'POST', body: form });
  return { body: Buffer.from(await req.arrayBuffer()), headers: { 'content-type': req.headers.get('content-type')! } };
}
