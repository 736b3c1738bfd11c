import { ADMIN_ONLY, route } from '../../lib/http/route.ts';
import { PluginNameParams } from '../../lib/plugins/schema.ts';
import { z } from 'zod';
import { okWith } from '../../lib/http/response-shapes.ts';

const ANSWER = { schema: okWith({ name: z.string() }) };

// DELETE /api/plugins/:name — unmounted when enabled, record and files removed; 200 {ok, name}.
export default route({
  method: 'DELETE',
  path: '/api/plugins/:name',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: { 404: "Plugin '<name>' not found" },
  response: ANSWER,
  params: PluginNameParams,
  async handle({ params, services }) {
    await services.plugins.delete(params.name);
    return { ok: true, name: params.name };
  },
});
