import { callerHeaders, type TestApp } from '../../../lib/testing.ts';

/** POST /api/sites/:id/files with one `file` part per entry, as a browser's FormData sends it. */
export async function uploadThroughApi(t: TestApp, id: string, dir: string, files: Record<string, string>) {
  const form = new FormData();
  for (const [name, content] of Object.entries(files)) form.append('file', new Blob([content]), name);
  const response = await t.app.fetch(new Request(`http://panel.test/api/sites/${id}/files?path=${encodeURIComponent(dir)}`, { method: 'POST', body: form, headers: callerHeaders('admin') }));
  return { status: response.status, body: await response.json() };
}
