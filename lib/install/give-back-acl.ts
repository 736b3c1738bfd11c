// POSIX ACLs the panel's user may have set on its own files and directories (the owner may, on
// ext4 and tmpfs): `user:<panel>:rwx` on a directory, or a default ACL that every file root's
// certbot creates there would inherit, with the umask then ignored. While the give-back works, the
// chmod that takes group write away also takes it from the ACL's mask, so no named entry grants
// write; once the walk is done this removes both ACLs from everything the give-back gave to root.
// Node has no xattr calls, so certbot's own interpreter does it (python3 is there wherever certbot
// is), isolated from the environment, lremovexattr only (never through a link). Every path is
// inside directories that are root's alone by then, so by-path calls are safe.
import { access, constants } from 'node:fs/promises';
import { run } from '../system/common/exec.ts';

const SCRIPT = `
import errno, json, os, sys
n = 0
for p in json.load(sys.stdin):
    try:
        names = [x for x in os.listxattr(p, follow_symlinks=False) if x in ('system.posix_acl_access', 'system.posix_acl_default')]
        for name in names:
            os.removexattr(p, name, follow_symlinks=False)
    except OSError as e:
        if e.errno not in (errno.ENODATA, errno.ENOTSUP, errno.EOPNOTSUPP, errno.ENOENT):
            raise
        names = []
    n += bool(names)
print(n)
`;

/** How many of the paths had an ACL (now removed: removing one that is not there succeeds, so it is listed first); null when there is no python3 to ask. */
export async function clearAcls(paths: readonly string[], python = '/usr/bin/python3'): Promise<number | null> {
  if (paths.length === 0) return 0;
  if (!(await access(python, constants.X_OK).then(() => true, () => false))) return null;
  const { stdout } = await run(python, ['-I', '-S', '-c', SCRIPT], { timeoutMs: 60_000, input: JSON.stringify(paths), env: {} });
  return Number(stdout.trim());
}
