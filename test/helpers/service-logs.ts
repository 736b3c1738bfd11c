// A viewer of WS /api/services/:name/logs that records every message, and a count of the
// follow processes (fake journalctl children) of this test process.
import { readdirSync, readFileSync } from 'node:fs';
import WebSocket from 'ws';
import type { Test } from 'uvu';
import { callerHeaders, createTestApp, type Caller, type TestApp } from '../../lib/testing.ts';
import { serve } from './http-server.ts';

export interface LogMessage {
  timestamp: string;
  message: string;
}

export interface LogViewerClient {
  ws: WebSocket;
  lines: LogMessage[];
  /** resolves once at least `count` lines arrived */
  waitForLines(count: number): Promise<void>;
  closed: Promise<{ code: number; reason: string }>;
  close(): void;
}

export const logsUrl = (port: number, name: string) => `ws://127.0.0.1:${port}/api/services/${name}/logs`;

/** Opens a viewer on a loopback port; resolves once the upgrade is accepted. */
export function openLogViewer(port: number, name: string, caller: Caller = 'admin'): Promise<LogViewerClient> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(logsUrl(port, name), { headers: callerHeaders(caller) });
    const lines: LogMessage[] = [];
    const waiters: { count: number; done: () => void }[] = [];
    const closed = new Promise<{ code: number; reason: string }>((ok) => ws.on('close', (code, reason) => ok({ code, reason: String(reason) })));
    ws.on('message', (data, isBinary) => {
      if (isBinary) throw new Error('log lines are text frames');
      lines.push(JSON.parse(String(data)) as LogMessage);
      for (const w of [...waiters]) {
        if (lines.length >= w.count) {
          waiters.splice(waiters.indexOf(w), 1);
          w.done();
        }
      }
    });
    ws.on('open', () =>
      resolve({
        ws,
        lines,
        closed,
        close: () => ws.close(),
        waitForLines: (count) => (lines.length >= count ? Promise.resolve() : new Promise((done) => waiters.push({ count, done }))),
      }),
    );
    ws.on('error', reject);
  });
}

/** Live children of this process whose command line names `program` (zombies count: not reaped). */
export function childProcesses(program: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(ppid) !== process.pid) continue;
      if (state === 'Z' || readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(program)) found.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return found;
}

/** Polls until `check` holds (every 20 ms, at most `ms`). */
export async function eventually(what: string, check: () => boolean, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: still not true after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Each test of `s` gets an onboarded panel served on a loopback port, read through the returned
 * object; after the test the app closes first (it closes the WebSockets the server would wait for).
 */
export function servedPanelPerTest(s: Test): { readonly t: TestApp; readonly port: number } {
  let t: TestApp | undefined;
  let http: Awaited<ReturnType<typeof serve>> | undefined;
  s.before.each(async () => {
    t = await createTestApp();
    await t.completeOnboarding();
    http = await serve(t.app);
  });
  s.after.each(async () => {
    await t?.close();
    await http?.close();
  });
  return {
    get t() {
      if (!t) throw new Error('no panel outside a test');
      return t;
    },
    get port() {
      if (!http) throw new Error('no server outside a test');
      return http.port;
    },
  };
}
