// The operator commands' names, apart from their code: lib/cli.ts loads lib/install/main.ts only
// when one of them is run, not on every start of the server.
export const COMMANDS = ['install', 'upgrade', 'uninstall', 'doctor'] as const;
export type Command = (typeof COMMANDS)[number];

export function isCommand(word: string | undefined): word is Command {
  return (COMMANDS as readonly string[]).includes(word ?? '');
}

/** Root's installer runs a task in the panel's directories as the panel's user (panel-task/). */
export const PANEL_TASK_COMMAND = 'panel-task';
