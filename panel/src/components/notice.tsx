import type { ComponentChildren } from 'preact';

export function ErrorText({ message }: { message: string | undefined }) {
  return message ? <p class="error" role="alert">{message}</p> : null;
}

export function Note({ children, kind = 'info' }: { children: ComponentChildren; kind?: 'info' | 'warn' | 'ok' }) {
  return <p class={`note note-${kind}`} role={kind === 'warn' ? 'alert' : 'status'}>{children}</p>;
}

/** What a page shows while its API is not on this server. */
export function Unavailable({ feature }: { feature: string }) {
  return <p class="note note-info" role="status">{feature}: not available on this server yet.</p>;
}

export function Loading() {
  return <p class="muted" role="status">Loading…</p>;
}
