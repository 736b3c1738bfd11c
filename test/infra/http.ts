// Loopback-only HTTP(S) client for tests: always connects to 127.0.0.1, names go in SNI and Host.
import { request as httpsRequest } from 'node:https';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';

export interface TestResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface TestRequest {
  port: number;
  host: string;
  path?: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  tls?: { ca?: string | Buffer; cert?: string; key?: string; rejectUnauthorized?: boolean };
}

export function loopbackRequest(r: TestRequest): Promise<TestResponse> {
  return new Promise((resolve, reject) => {
    const common = {
      host: '127.0.0.1',
      port: r.port,
      path: r.path ?? '/',
      method: r.method ?? 'GET',
      headers: { Host: r.port === 443 || r.port === 80 ? r.host : `${r.host}:${r.port}`, ...r.headers },
      agent: false as const,
    };
    const onResponse = (res: import('node:http').IncomingMessage) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', reject);
    };
    const req = r.tls
      ? httpsRequest({ ...common, servername: r.host, ca: r.tls.ca, cert: r.tls.cert, key: r.tls.key, rejectUnauthorized: r.tls.rejectUnauthorized ?? true }, onResponse)
      : httpRequest(common, onResponse);
    req.on('error', reject);
    req.setTimeout(10_000, () => req.destroy(new Error('request timed out')));
    req.end(r.body);
  });
}
