import { Readable } from 'node:stream';
import { Response } from '../../lib/http/responses.ts';
import { ADMIN_ONLY, route } from '../../lib/http/route.ts';
import { z } from 'zod';

// GET /api/backup — the archive of `node dist/server.mjs backup`, streamed as it is packed.
export default route({
  method: 'GET',
  path: '/api/backup',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: { 409: 'Backups need the configuration and state on disk (an in-memory panel)' },
  response: { schema: z.string(), contentType: 'application/gzip', kind: 'response' },
  async handle({ services }) {
    // every accepted change on disk first: the archive reads the files
    await Promise.all([services.store.flush(), services.audit.flush(), services.config.flush()]);
    const now = new Date(services.clock.now());
    // imported here: tar and its zlib/assert are not loaded on every start of the server (cold start)
    const { backupStream } = await import('../../lib/backup/create-archive.ts');
    const pack = await backupStream(services.config.file, services.config.value, now);
    const name = `relay-panel-backup-${now.toISOString().slice(0, 19).replaceAll(':', '-')}.tar.gz`;
    return new Response(Readable.toWeb(Readable.from(pack)) as ReadableStream<Uint8Array>, {
      headers: { 'content-type': 'application/gzip', 'content-disposition': `attachment; filename="${name}"`, 'cache-control': 'no-store' },
    });
  },
});
