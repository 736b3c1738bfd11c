// Every vhost relay-panel writes ends with a line holding the SHA-256 of the text above it, so a
// hand edit (which nginx would serve until the panel next writes that vhost) can be told apart
// from what the panel wrote: the doctor names it and the next start rewrites it (a tunnel's a
// second after the panel listens, lib/host-state/reconcile.ts).
import { createHash } from 'node:crypto';

const MARK = '# relay-panel sha256 ';

const digest = (text: string) => createHash('sha256').update(text).digest('hex');

export function stampVhost(content: string): string {
  const body = content.endsWith('\n') ? content : `${content}\n`;
  return `${body}${MARK}${digest(body)}\n`;
}

/**
 * false when the text was changed after relay-panel wrote it; true when it is as written, and
 * also for a vhost without the line (written by a release before it: nothing to compare with).
 */
export function vhostIntact(text: string): boolean {
  const at = text.lastIndexOf(`\n${MARK}`);
  if (at < 0) return true;
  const body = text.slice(0, at + 1);
  return text.slice(at + 1) === `${MARK}${digest(body)}\n`;
}
