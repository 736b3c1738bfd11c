// Root's side of the panel tasks (panel-task/): the installed release's own bundle, run as the
// panel's user with a request on stdin. What it prints is that user's word: root parses it with the
// answer's schema and uses nothing else of it. A panel that runs as root does the task in-process.
import { join } from 'node:path';
import { run } from '../system/common/exec.ts';
import type { Owner } from './files.ts';
import { InstallError } from './host-checks.ts';
import type { Installation } from './installation.ts';
import { ANSWERS, PANEL_TASK_COMMAND, type PanelAnswer, type PanelTask } from './panel-task/protocol.ts';

const TASK_TIMEOUT_MS = 120_000;

/** Root's environment is not handed down: the child gets a plain PATH, a locale and the panel's home. */
function panelEnv(inst: Installation): NodeJS.ProcessEnv {
  return { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C.UTF-8', HOME: inst.layout.dataDir };
}

export async function asPanelUser<T extends PanelTask>(inst: Installation, owner: Owner, task: T): Promise<PanelAnswer<T['task']>> {
  const schema = ANSWERS[task.task];
  if (owner.uid === 0) {
    const { doPanelTask } = await import('./panel-task/main.ts');
    return schema.parse(await doPanelTask(task)) as PanelAnswer<T['task']>;
  }
  const server = join(inst.layout.current, 'server.mjs');
  let stdout: string;
  try {
    ({ stdout } = await run(inst.options.node, [server, PANEL_TASK_COMMAND], {
      timeoutMs: TASK_TIMEOUT_MS, input: JSON.stringify(task), as: owner, cwd: '/', env: panelEnv(inst),
    }));
  } catch (e) {
    const said = (e as { stderr?: string }).stderr?.trim().split('\n').pop()?.replace(/^relay-panel panel-task: /, '');
    throw new InstallError(`${task.task}, as ${inst.options.user}: ${said || (e as Error).message}`);
  }
  let parsed;
  try {
    parsed = schema.safeParse(JSON.parse(stdout.trim().split('\n').pop() ?? ''));
  } catch {
    parsed = null;
  }
  if (!parsed?.success) throw new InstallError(`${task.task}, as ${inst.options.user}: an answer that is not the task's`);
  return parsed.data as PanelAnswer<T['task']>;
}
