// Authelia 4.38's /api/authz/auth-request as nginx's auth_request subrequest meets it: 200 with the
// Remote-* headers for a signed-in user; otherwise 401 with a Location header, the portal address
// (session.cookies[].authelia_url) with the original URL escaped in `rd` and the method in `rm`.
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface AuthzAnswer {
  /** who is signed in; null: nobody (401) */
  user: string | null;
  /** the portal's own address, as Authelia's authelia_url */
  portalUrl: string;
}

export function answerAuthz(req: IncomingMessage, res: ServerResponse, answer: AuthzAnswer): void {
  if (answer.user !== null) {
    res.setHeader('Remote-User', answer.user);
    res.end();
    return;
  }
  const target = new URL(answer.portalUrl);
  target.searchParams.set('rd', String(req.headers['x-original-url'] ?? ''));
  target.searchParams.set('rm', String(req.headers['x-original-method'] ?? 'GET'));
  res.statusCode = 401;
  res.setHeader('Location', target.toString());
  res.end();
}
