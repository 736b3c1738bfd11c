// The backup commands' names and usage, apart from their code: lib/cli.ts loads
// lib/backup-commands.ts (and tar) only when one of them is run, not on every start of the server.
export const BACKUP_COMMANDS = ['backup', 'restore'] as const;
export type BackupCommand = (typeof BACKUP_COMMANDS)[number];

export const BACKUP_USAGE = `  backup  --config <file> --out <file.tar.gz>    configuration, state, PKI, portal, tunnel credential and site files
  restore --config <file> --from <file.tar.gz>   onto an empty data dir; vhosts and the tunnel authfile are rendered again`;

export function isBackupCommand(word: string | undefined): word is BackupCommand {
  return (BACKUP_COMMANDS as readonly string[]).includes(word ?? '');
}
