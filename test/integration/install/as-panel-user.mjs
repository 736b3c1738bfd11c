// argv that runs a command as the panel user, with its groups (the root helper's socket is the group's).
export function asPanelUserArgv(user, argv) {
  return ['/usr/bin/setpriv', ['--reuid', user, '--regid', user, '--init-groups', ...argv]];
}
