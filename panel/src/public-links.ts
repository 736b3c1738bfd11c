// How a browser opens a name the panel serves (a tunnel, a site): the server decides
// (GET /api/onboarding/status `publicLinks`): https on a real host, http on the sandbox's own port.
import { signal } from '@preact/signals';
import type { GetAnswer } from './api.ts';

export type PublicBase = GetAnswer<'/api/onboarding/status'>['publicLinks'];

/** https with the default port until the status has answered (a real host's links). */
export const publicBase = signal<PublicBase>({ scheme: 'https', port: null });

export function publicUrl(host: string): string {
  const { scheme, port } = publicBase.value;
  return `${scheme}://${host}${port === null ? '' : `:${port}`}`;
}
