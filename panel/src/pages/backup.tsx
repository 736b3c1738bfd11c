// The backup archive of GET /api/backup, and restoring one (README "Backup and restore").
import { useState } from 'preact/hooks';
import { fetchFile } from '../api.ts';
import { Action } from '../components/action.tsx';
import { Note } from '../components/notice.tsx';
import { bytes } from '../format.ts';
import { saveFile } from '../save-file.ts';
import { Restore } from './backup-restore.tsx';

export function Backup() {
  const [saved, setSaved] = useState<{ name: string; size: number }>();
  return (
    <section class="card" aria-labelledby="backup-title">
      <h2 id="backup-title">Backup</h2>
      <p>One gzipped tar archive of the panel's configuration, records and audit log, the client CA and the certificates it issued, the portal's users and secrets, the tunnel server's key, the sites' files and the Let's Encrypt certificates.</p>
      <Note kind="warn">The archive holds every secret of this box (keys, portal secrets): keep it where only you can read it.</Note>
      <div class="row">
        <Action kind="primary" run={async () => {
          setSaved(undefined);
          const file = await fetchFile('/api/backup', 'relay-panel-backup.tar.gz');
          saveFile(file.blob, file.name);
          setSaved({ name: file.name, size: file.blob.size });
        }}>Download backup</Action>
        {saved && <span class="ok" role="status">Saved {saved.name} ({bytes(saved.size)}).</span>}
      </div>
      <Restore />
    </section>
  );
}
