import { request } from 'node:http';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { callerHeaders, createTestApp } from '../../../lib/testing.ts';
import { serve } from '../../helpers/http-server.ts';
import { withTimeout } from '../../helpers/timeout.ts';

const s = suite('responses on the wire');

/** Raw GET on a keep-alive agent: the declared length and the bytes that arrived. */
function get(port: number, path: string, agent: import('node:http').Agent): Promise<{ declared: number; received: number; status: number }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent, headers: callerHeaders('admin') }, (res) => {
      let received = 0;
      res.on('data', (chunk: Buffer) => (received += chunk.length));
      res.on('end', () => resolve({ declared: Number(res.headers['content-length']), received, status: res.statusCode ?? 0 }));
    });
    req.on('error', reject);
    req.end();
  });
}

s('every response declares its own content-length, also after other responses on one connection', () =>
  withTimeout('content-length', 5000, async () => {
    const t = await createTestApp();
    const http = await serve(t.app);
    const { Agent } = await import('node:http');
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      await t.completeOnboarding();
      await t.services.store.tunnels.update((list) => {
        for (let i = 0; i < 50; i++) {
          list.push({ id: crypto.randomUUID(), subdomain: `app${i}`, fqdn: `app${i}.example.test`, port: 2000 + i, description: 'x'.repeat(100), enabled: true, createdAt: new Date(i).toISOString() });
        }
      });
      for (const path of ['/api/health', '/api/tunnels', '/api/health', '/api/nope', '/api/tunnels', '/api/onboarding/status']) {
        const { declared, received, status } = await get(http.port, path, agent);
        assert.ok(status > 0, path);
        assert.is(declared, received, `${path}: content-length ${declared}, body ${received}`);
      }
    } finally {
      agent.destroy();
      await http.close();
      await t.close();
    }
  }),
);

s.run();
