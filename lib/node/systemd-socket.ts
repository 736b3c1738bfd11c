// systemd socket activation (sd_listen_fds(3)): the installed panel's socket unit listens on its
// loopback port and passes the socket as file descriptor 3, so connections made while the panel
// restarts wait in the socket's queue instead of being refused.

const SD_LISTEN_FDS_START = 3;

/**
 * The descriptor systemd passed to this process, or null when it passed none. The variables are
 * removed once read, as sd_listen_fds does, so the programs the panel runs never take the socket
 * for theirs.
 */
export function takeListenFd(env: NodeJS.ProcessEnv, pid = process.pid): number | null {
  const ours = env.LISTEN_PID === String(pid) && Number.isInteger(Number(env.LISTEN_FDS)) && Number(env.LISTEN_FDS) >= 1;
  delete env.LISTEN_PID;
  delete env.LISTEN_FDS;
  delete env.LISTEN_FDNAMES;
  return ours ? SD_LISTEN_FDS_START : null;
}
