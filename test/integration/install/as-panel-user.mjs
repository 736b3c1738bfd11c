// argv that runs a command as the panel user in a private mount namespace where /etc/sudoers.d is
// the installation's own directory, so sudo sees only the installed rules (the real one is untouched).
export function asPanelUserArgv(user, sudoersDir, argv) {
  return ['/usr/bin/unshare', ['--mount', '--', '/bin/sh', '-c',
    'mount --bind "$1" /etc/sudoers.d && shift && exec /usr/bin/setpriv --reuid="$0" --regid="$0" --init-groups "$@"',
    user, sudoersDir, ...argv]];
}
