// The messages of WS /api/onboarding/provision/stream. Every message carries the spec's fields
// (task, title, status, message, log, progress); `type` says which kind it is:
//   state    - the full current state: sent first to every client, and again when a run begins
//   task     - a task started, logged a line, or finished
//   error    - a task failed; the run stopped and a new POST retries from the start
//   complete - the last task finished: admin credentials and access URLs (sent once, never stored)
import type { OnboardingStatus } from '../config.ts';
import type { AccessUrls } from '../stack-hosts.ts';

export const TASK_IDS = ['tunnel-server', 'auth-portal', 'certificates', 'vhosts', 'services', 'complete'] as const;
export type TaskId = (typeof TASK_IDS)[number];

export type TaskStatus = 'pending' | 'running' | 'done' | 'error';
/** idle: no run since start-up; running; failed: the last run stopped at a task; completed */
export type RunState = 'idle' | 'running' | 'failed' | 'completed';

export interface TaskView {
  task: TaskId;
  title: string;
  status: TaskStatus;
  /** the latest line of the task: what it does now, how it ended, or why it failed */
  message: string;
  /** every line of the task so far, newline-separated */
  log: string;
}

/** `current` counts finished tasks, so a bar reads current/total. */
export interface Progress {
  current: number;
  total: number;
}

export interface TaskEvent extends TaskView {
  type: 'task' | 'error';
  progress: Progress;
}

export interface AdminCredentials {
  username: string;
  password: string;
}

export interface CompleteEvent extends TaskView {
  type: 'complete';
  progress: Progress;
  credentials: AdminCredentials;
  urls: AccessUrls;
}

export interface StateMessage extends TaskView {
  type: 'state';
  progress: Progress;
  run: RunState;
  onboardingStatus: OnboardingStatus;
  tasks: TaskView[];
  /** the failed task and its reason when `run` is failed */
  error: { task: TaskId; message: string } | null;
  startedAt: string | null;
  finishedAt: string | null;
}

export type StreamMessage = StateMessage | TaskEvent | CompleteEvent;
