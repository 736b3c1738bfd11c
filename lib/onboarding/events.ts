// The messages of WS /api/onboarding/provision/stream. Every message carries the spec's fields
// (task, title, status, message, log, progress); `type` says which kind it is:
//   state    - the full current state: sent first to every client, and again when a run begins
//   task     - a task started, logged a line, or finished
//   error    - a task failed; the run stopped and a new POST retries from the start
//   complete - the last task finished: admin credentials and access URLs (sent once, never stored)
// The schemas are the route's `response` (one message), so the panel's type of a message is read
// from the route like any answer; the types below are theirs.
import { z } from 'zod';
import { ONBOARDING_STATUSES } from '../config.ts';
import type { AccessUrls } from '../stack-hosts.ts';

export const TASK_IDS = ['tunnel-server', 'auth-portal', 'certificates', 'vhosts', 'services', 'complete'] as const;
export type TaskId = (typeof TASK_IDS)[number];

const TASK_STATUSES = ['pending', 'running', 'done', 'error'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];
/** idle: no run since start-up; running; failed: the last run stopped at a task; completed */
const RUN_STATES = ['idle', 'running', 'failed', 'completed'] as const;
export type RunState = (typeof RUN_STATES)[number];

export const TaskView = z.object({
  task: z.enum(TASK_IDS),
  title: z.string(),
  status: z.enum(TASK_STATUSES),
  /** the latest line of the task: what it does now, how it ended, or why it failed */
  message: z.string(),
  /** every line of the task so far, newline-separated */
  log: z.string(),
});
export type TaskView = z.output<typeof TaskView>;

/** `current` counts finished tasks, so a bar reads current/total. */
const Progress = z.object({ current: z.number(), total: z.number() });
export type Progress = z.output<typeof Progress>;

const TaskEvent = TaskView.extend({ type: z.enum(['task', 'error']), progress: Progress });
export type TaskEvent = z.output<typeof TaskEvent>;

const AdminCredentials = z.object({ username: z.string(), password: z.string() });
export type AdminCredentials = z.output<typeof AdminCredentials>;

/** lib/stack-hosts.ts's AccessUrls as a schema; `satisfies` makes a field added there fail the check here. */
const AccessUrlsSchema = z.object({ panel: z.string(), authPortal: z.string(), ip: z.string() }).strict() satisfies z.ZodType<AccessUrls, AccessUrls>;

const CompleteEvent = TaskView.extend({
  type: z.literal('complete'),
  progress: Progress,
  credentials: AdminCredentials,
  urls: AccessUrlsSchema,
});
export type CompleteEvent = z.output<typeof CompleteEvent>;

const StateMessage = TaskView.extend({
  type: z.literal('state'),
  progress: Progress,
  run: z.enum(RUN_STATES),
  onboardingStatus: z.enum(ONBOARDING_STATUSES),
  tasks: z.array(TaskView),
  /** the failed task and its reason when `run` is failed */
  error: z.object({ task: z.enum(TASK_IDS), message: z.string() }).nullable(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
});
export type StateMessage = z.output<typeof StateMessage>;

/** One message of the stream. */
export const StreamMessage = z.union([StateMessage, TaskEvent, CompleteEvent]);
export type StreamMessage = z.output<typeof StreamMessage>;
