// The backup archive of GET /api/backup, and how to restore it (README "Backup and restore").
import { useState } from 'preact/hooks';
import { fetchFile } from '../api.ts';
import { Action } from '../components/action.tsx';
import { useKeyboardScroll } from '../components/keyboard-scroll.ts';
import { Note } from '../components/notice.tsx';
import { bytes } from '../format.ts';
import { saveFile } from '../save-file.ts';

export function Backup() {
  const [saved, setSaved] = useState<{ name: string; size: number }>();
  const command = useKeyboardScroll<HTMLPreElement>('Restore command');
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
      <h3>Restoring</h3>
      <p>Restore on the box, as root, with the panel stopped and an empty (or missing) data directory:</p>
      <pre class="code-block" ref={command}>node server.mjs restore --config /etc/relay-panel/config.json --from relay-panel-backup.tar.gz</pre>
      <p>The archive is checked whole before anything is written, and refused if it is not a panel backup or holds paths outside its sections. When the configuration file exists its locations (data directory, client files, listener, system) are kept, so a box can be restored under another port or layout. The vhosts and the tunnel server's authfile are rendered again from the records; no certificate or credential is issued, so agents keep working. Restored as root, files keep their archived owners: if the panel's user has another id on the new box, give it the restored directories with <code>chown -R</code>.</p>
    </section>
  );
}
