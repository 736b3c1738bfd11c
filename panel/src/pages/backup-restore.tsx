// Restore from a backup file (POST /api/backup/inspect, then /api/backup/restore): pick the archive,
// read what it holds, confirm what it replaces, restore, and wait for the panel to come back.
import { useState } from 'preact/hooks';
import { BACKUP_UPLOAD_LIMITS } from '../../../lib/upload-limits.ts';
import { ApiError, describe, upload, type UrlAnswer } from '../api.ts';
import { confirmAction } from '../components/dialogs.tsx';
import { ErrorText, Loading, Note } from '../components/notice.tsx';
import { Copyable } from '../components/secret.tsx';
import { bytes } from '../format.ts';
import { useResource } from '../resource.ts';

/** The archive's summary, as the inspect route answers it (lib/backup/inspect.ts). */
type Summary = UrlAnswer<'POST', '/api/backup/inspect'>['summary'];

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** What the confirmation names: everything the panel holds now goes, the archive's comes. */
export function replacedText(summary: Summary): string {
  const c = summary.counts;
  const holds = [plural(c.tunnels, 'tunnel'), plural(c.sites, 'site'), plural(c.users, 'portal user'), plural(c.agents, 'agent'),
    plural(c.certificates, 'certificate'), plural(c.plugins, 'plugin'), plural(c.webhooks, 'webhook')].join(', ');
  return `Replace this panel's tunnels, sites, portal users, agents, certificates, plugins, webhooks, settings and audit log with the backup of ${new Date(summary.created).toLocaleString()}`
    + ` (domain ${summary.domain ?? 'not set'}): ${holds}? Everything changed since that backup is lost; the current state is kept beside the data directory.`;
}

/** Polls until the restarted panel answers again (it stops right after its answer). */
async function panelBack(): Promise<void> {
  await new Promise((ok) => setTimeout(ok, 1000));
  for (let tries = 0; tries < 120; tries++) {
    const up = await fetch('/api/health', { cache: 'no-store' }).then((r) => r.ok, () => false);
    if (up) return;
    await new Promise((ok) => setTimeout(ok, 500));
  }
  throw new Error('The panel did not come back within a minute: see its log');
}

export function Restore() {
  const info = useResource('/api/backup/restore');
  const [file, setFile] = useState<File>();
  const [busy, setBusy] = useState<string>();
  const [error, setError] = useState<string>();
  const [done, setDone] = useState<string>();
  const send = <U extends '/api/backup/inspect' | '/api/backup/restore'>(path: U, onProgress = (_: number) => {}) => {
    const form = new FormData();
    form.append('archive', file!, file!.name);
    return upload(path, form, onProgress);
  };
  async function restore(event: Event) {
    event.preventDefault();
    if (!file) return;
    setError(undefined);
    setDone(undefined);
    if (file.size > BACKUP_UPLOAD_LIMITS.maxFileBytes) return setError(`The file is ${bytes(file.size)}: at most ${bytes(BACKUP_UPLOAD_LIMITS.maxFileBytes)} can be restored here`);
    try {
      setBusy('Checking the backup…');
      const { summary } = await send('/api/backup/inspect');
      setBusy(undefined);
      if (!(await confirmAction(replacedText(summary)))) return;
      setBusy('Restoring…');
      const { next } = await send('/api/backup/restore');
      setBusy(`${next} Waiting for it…`);
      await panelBack();
      setDone(`Restored the backup of ${new Date(summary.created).toLocaleString()}. ${next} Its vhosts and tunnel server credentials were rendered again from the restored records; agents and portal users of the backup work as they did then.`);
    } catch (e) {
      setError(e instanceof ApiError ? describe(e) : (e as Error).message);
    } finally {
      setBusy(undefined);
    }
  }
  const data = info.data;
  return (
    <>
      <h3>Restoring</h3>
      <ErrorText message={info.error} />
      {!data ? (!info.error && <Loading />) : (
        <>
          {data.inPanel ? (
            <form onSubmit={restore} aria-label="Restore from a backup file">
              <p>Pick an archive of <em>Download backup</em>. It is checked whole first (a panel backup, its sections and versions), then you see what it holds before anything is replaced. {data.next}</p>
              <div class="field">
                <label for="restore-file">Backup file</label>
                <input id="restore-file" type="file" accept=".tar.gz,.tgz,application/gzip" required
                  onChange={(e) => { setFile((e.target as HTMLInputElement).files?.[0]); setDone(undefined); setError(undefined); }} />
              </div>
              <ErrorText message={error} />
              <button type="submit" class="btn btn-danger" disabled={!file || busy !== undefined} aria-busy={busy !== undefined}>Restore…</button>
              {busy && <p role="status">{busy}</p>}
              {done && <Note kind="ok">{done}</Note>}
            </form>
          ) : <Note>This panel was not started by its server command, so it cannot restore itself: use the command below.</Note>}
          <h4>From the command line</h4>
          {data.driver === 'sandbox'
            ? <p>Stop the panel (Ctrl+C where <code>npm start</code> runs), move its data directory <code>{data.dataDir}</code> away, then run from the project directory:</p>
            : <p>As the panel's own user (never as root: the command refuses), with the panel stopped (<code>systemctl stop relay-panel</code>) and its data directory <code>{data.dataDir}</code> moved away:</p>}
          <Copyable text={data.command} label="Restore command" />
          <p>The archive is checked whole before anything is written, and refused if it is not a panel backup or holds paths outside its sections. The configuration file's locations (data directory, client files, listener, system) are kept, so a box can be restored under another port or layout. The vhosts and the tunnel server's authfile are rendered again from the records; no certificate or credential is issued, so agents keep working.</p>
        </>
      )}
    </>
  );
}
