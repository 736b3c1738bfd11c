// The operator commands' names, apart from their code: lib/cli.ts loads lib/install/main.ts only
// when one of them is run, not on every start of the server.
export const COMMANDS = ['install', 'upgrade', 'uninstall', 'doctor'] as const;
export type Command = (typeof COMMANDS)[number];

export function isCommand(word: string | undefined): word is Command {
  return (COMMANDS as readonly string[]).includes(word ?? '');
}
