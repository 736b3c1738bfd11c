// The one shared provisioning state: what a late joiner receives first, and the fan-out of live
// events to every connected client. In memory only: after a restart the board is idle again and
// the stored status (PROVISIONING) tells the client to POST provision once more.
import type { OnboardingStatus } from '../config.ts';
import type { AccessUrls } from '../stack-hosts.ts';
import type { AdminCredentials, CompleteEvent, RunState, StateMessage, StreamMessage, TaskEvent, TaskId, TaskView } from './events.ts';

/** Per-task log lines kept; a chatty task cannot grow the state (and every late-join message) without bound. */
const MAX_LOG_LINES = 200;

export type StreamListener = (message: StreamMessage) => void;

export class ProgressBoard {
  private tasks: TaskView[];
  private run: RunState = 'idle';
  private failure: StateMessage['error'] = null;
  private startedAt: string | null = null;
  private finishedAt: string | null = null;
  private readonly listeners = new Set<StreamListener>();

  constructor(
    private readonly definitions: readonly { id: TaskId; title: string }[],
    private readonly now: () => string,
    private readonly onboardingStatus: () => OnboardingStatus,
  ) {
    this.tasks = this.pendingTasks();
  }

  subscribe(listener: StreamListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** connected stream clients (a closed socket must not stay subscribed) */
  get listenerCount(): number {
    return this.listeners.size;
  }

  snapshot(): StateMessage {
    const focus =
      this.tasks.find((t) => t.status === 'running' || t.status === 'error') ??
      [...this.tasks].reverse().find((t) => t.status === 'done') ??
      this.tasks[0];
    if (!focus) throw new Error('ProgressBoard has no tasks to show');
    return {
      type: 'state',
      ...copy(focus),
      progress: this.progress(),
      run: this.run,
      onboardingStatus: this.onboardingStatus(),
      tasks: this.tasks.map(copy),
      error: this.failure,
      startedAt: this.startedAt,
      finishedAt: this.finishedAt,
    };
  }

  /** A new run: every task back to pending; clients get the fresh state. */
  begin(): void {
    this.tasks = this.pendingTasks();
    this.run = 'running';
    this.failure = null;
    this.startedAt = this.now();
    this.finishedAt = null;
    this.publish(this.snapshot());
  }

  start(id: TaskId, message: string): void {
    this.set(id, { status: 'running' });
    this.log(id, message);
  }

  log(id: TaskId, line: string): void {
    const task = this.task(id);
    append(task, line);
    this.publish(this.event('task', task));
  }

  finish(id: TaskId, message: string): void {
    this.set(id, { status: 'done' });
    this.log(id, message);
  }

  fail(id: TaskId, reason: string): void {
    const task = this.set(id, { status: 'error' });
    append(task, `Failed: ${reason}`);
    task.message = reason;
    this.run = 'failed';
    this.failure = { task: id, message: reason };
    this.finishedAt = this.now();
    this.publish(this.event('error', task));
  }

  /**
   * The last task is done. The credentials go into this one event only: they are not kept here,
   * so no later snapshot can contain them.
   */
  complete(id: TaskId, message: string, extras: { credentials: AdminCredentials; urls: AccessUrls }): void {
    const task = this.set(id, { status: 'done' });
    append(task, message);
    this.run = 'completed';
    this.finishedAt = this.now();
    const event: CompleteEvent = { ...this.event('task', task), type: 'complete', credentials: { ...extras.credentials }, urls: extras.urls };
    this.publish(event);
  }

  private publish(message: StreamMessage): void {
    for (const listener of [...this.listeners]) listener(message);
  }

  private event(type: TaskEvent['type'], task: TaskView): TaskEvent {
    return { type, ...copy(task), progress: this.progress() };
  }

  private progress() {
    return { current: this.tasks.filter((t) => t.status === 'done').length, total: this.tasks.length };
  }

  private set(id: TaskId, patch: Partial<TaskView>): TaskView {
    return Object.assign(this.task(id), patch);
  }

  private task(id: TaskId): TaskView {
    const task = this.tasks.find((t) => t.task === id);
    if (!task) throw new Error(`unknown provisioning task ${id}`);
    return task;
  }

  private pendingTasks(): TaskView[] {
    return this.definitions.map((d) => ({ task: d.id, title: d.title, status: 'pending', message: '', log: '' }));
  }
}

function copy(task: TaskView): TaskView {
  return { task: task.task, title: task.title, status: task.status, message: task.message, log: task.log };
}

/** Adds a line to the task's log (keeping the last MAX_LOG_LINES) and makes it the task's message. */
function append(task: TaskView, line: string): void {
  const lines = task.log === '' ? [] : task.log.split('\n');
  lines.push(line);
  task.log = lines.slice(-MAX_LOG_LINES).join('\n');
  task.message = line;
}
