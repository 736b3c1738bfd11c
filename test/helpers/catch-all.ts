// What a request for a name without a vhost meets at nginx (or one without any name: the bare
// address, no SNI, Host an IP): the answer and the certificate presented, which is never checked
// here, since the point is to see which server block answered.
import { request as httpsRequest } from 'node:https';
import { request as httpRequest } from 'node:http';
import type { TLSSocket } from 'node:tls';

export interface CatchAllAnswer {
  status: number;
  body: string;
  /** subject CN of the certificate nginx presented; null over plain HTTP */
  certificate: string | null;
}

/** GET `path` on 127.0.0.1:`port`; `host` null: no SNI and the address as Host. */
export function requestUnchecked(o: { port: number; host: string | null; path?: string; tls: boolean }): Promise<CatchAllAnswer> {
  return new Promise((resolve, reject) => {
    const common = { host: '127.0.0.1', port: o.port, path: o.path ?? '/', headers: { Host: o.host ?? '127.0.0.1' }, agent: false as const };
    const onResponse = (res: import('node:http').IncomingMessage) => {
      const certificate = o.tls ? String((res.socket as TLSSocket).getPeerCertificate().subject?.CN ?? '') : null;
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, certificate }));
    };
    // an empty servername sends no SNI at all, as a client given only the address does
    const req = o.tls ? httpsRequest({ ...common, servername: o.host ?? '', rejectUnauthorized: false }, onResponse) : httpRequest(common, onResponse);
    req.on('error', reject);
    req.setTimeout(10_000, () => req.destroy(new Error('request timed out')));
    req.end();
  });
}

/** The default server's answer (lib/system/proxy/templates.ts renderDefault) and its certificate's name. */
export const CATCH_ALL = { status: 404, body: 'Not found\n', certificate: 'relay-panel-default' } as const;
