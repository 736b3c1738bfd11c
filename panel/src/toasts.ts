// What the panel's actions said: short messages ("toasts") that go away by themselves, and the
// count of actions started, by which a page hides what an earlier action said once a later one
// starts (a refusal above a form must not read as the outcome of the delete clicked after it).
import { signal } from '@preact/signals';

export type ToastKind = 'ok' | 'error';
export interface Toast { id: number; kind: ToastKind; text: string }

/** A success is read at a glance; a failure stays long enough to be read, and until a later action starts. */
export const TOAST_MS: Record<ToastKind, number> = { ok: 4_000, error: 10_000 };
/** More than this at once is noise: the oldest goes. */
export const MAX_TOASTS = 4;

export const toasts = signal<readonly Toast[]>([]);
/** Increases when an action (a button that sends a request, a form's submit) starts. */
export const actionStarts = signal(0);

let nextId = 1;
const timers = new Map<number, ReturnType<typeof setTimeout>>();

export function showToast(kind: ToastKind, text: string, ms: number = TOAST_MS[kind]): number {
  const id = nextId++;
  const kept = [...toasts.value, { id, kind, text }];
  for (const dropped of kept.splice(0, Math.max(0, kept.length - MAX_TOASTS))) forget(dropped.id);
  toasts.value = kept;
  timers.set(id, setTimeout(() => dismissToast(id), ms));
  return id;
}

export function dismissToast(id: number): void {
  forget(id);
  if (toasts.value.some((t) => t.id === id)) toasts.value = toasts.value.filter((t) => t.id !== id);
}

const atNextStart = new Set<() => void>();

/** Runs `clear` when the next action starts (a page's error text set by the last one, say). */
export function onNextActionStart(clear: () => void): void {
  atNextStart.add(clear);
}

/** Called as an action starts: earlier failures are no longer news; successes run out their time. */
export function actionStarted(): number {
  for (const t of toasts.value) if (t.kind === 'error') dismissToast(t.id);
  const clears = [...atNextStart];
  atNextStart.clear();
  for (const clear of clears) clear();
  return ++actionStarts.value;
}

function forget(id: number): void {
  clearTimeout(timers.get(id));
  timers.delete(id);
}
