// A site's files: folders, drag-and-drop (or picked) uploads with a progress bar, delete.
import { useState } from 'preact/hooks';
import { api, describe, upload, withQuery } from '../api.ts';
import { sizeRefusal, UPLOAD_FAILED } from '../../../lib/upload-refusals.ts';
import { SITE_UPLOAD_LIMITS } from '../../../lib/upload-limits.ts';
import { bytes, when } from '../format.ts';
import { useResource } from '../resource.ts';
import { Action } from './action.tsx';
import { useRevealed } from './focus-return.ts';
import { ErrorText, Loading, Note } from './notice.tsx';
import { Table } from './table.tsx';

export function FileBrowser({ siteId, siteName, onChanged, onClose }: { siteId: string; siteName: string; onChanged(): void; onClose(): void }) {
  const heading = useRevealed<HTMLHeadingElement>();
  const [path, setPath] = useState('.');
  const base = `/api/sites/${encodeURIComponent(siteId)}/files` as const;
  const list = useResource(withQuery('GET', base, { path }));
  const [progress, setProgress] = useState<number>();
  const [warning, setWarning] = useState<string>();
  const [error, setError] = useState<string>();
  const [over, setOver] = useState(false);

  async function send(files: FileList | null) {
    if (!files?.length) return;
    // refused here before a byte is sent, in the server's words: a 50 MB file would otherwise travel whole to its refusal
    const refusal = sizeRefusal(SITE_UPLOAD_LIMITS, Array.from(files));
    if (refusal) {
      setWarning(undefined);
      // as the server words every refusal of a site upload
      setError(`${UPLOAD_FAILED}${refusal}`);
      return;
    }
    const form = new FormData();
    for (const file of Array.from(files)) form.append('file', file, file.name);
    setError(undefined);
    setWarning(undefined);
    setProgress(0);
    try {
      const result = await upload(withQuery('POST', base, { path }), form, setProgress);
      setWarning(result.warning);
      await list.reload();
      onChanged();
    } catch (e) {
      setError(describe(e));
    } finally {
      setProgress(undefined);
    }
  }

  const parent = path === '.' ? undefined : path.split('/').slice(0, -1).join('/') || '.';
  return (
    <section class="card" aria-labelledby="files-title">
      <div class="row spread">
        <h3 id="files-title" ref={heading} tabIndex={-1}>Files of {siteName}: /{path === '.' ? '' : path}</h3>
        <button type="button" class="btn" aria-label={`Close files of ${siteName}`} onClick={onClose}>Close</button>
      </div>
      <div class={over ? 'dropzone over' : 'dropzone'} data-testid="dropzone"
        onDragOver={(e) => { e.preventDefault(); setOver(true); }} onDragLeave={() => setOver(false)}
        onDrop={(e) => { e.preventDefault(); setOver(false); void send(e.dataTransfer?.files ?? null); }}>
        <p>Drop files here to upload them to this folder, or</p>
        <label class="btn">Choose files<input class="visually-hidden" type="file" multiple onChange={(e) => void send((e.target as HTMLInputElement).files)} /></label>
      </div>
      {progress !== undefined && <progress max={1} value={progress} aria-label="Upload progress">{Math.round(progress * 100)}%</progress>}
      {warning && <Note kind="warn">{warning}</Note>}
      <ErrorText message={list.error ?? error} />
      {parent && <button type="button" class="btn" onClick={() => setPath(parent)}>Up to /{parent === '.' ? '' : parent}</button>}
      {!list.data ? <Loading /> : (
        <Table head={['Name', 'Size', 'Modified', 'Actions']} empty="This folder is empty."
          rows={list.data.files.map((f) => [
            f.type === 'directory' ? <button type="button" class="link" onClick={() => setPath(f.relativePath)}>{f.name}/</button> : f.name,
            f.type === 'directory' ? '—' : bytes(f.size), when(f.modifiedAt),
            <Action kind="danger" label={`Delete ${f.relativePath}`} onError={setError} confirm={`Delete ${f.relativePath}${f.type === 'directory' ? ' and everything in it' : ''}?`}
              run={async () => { await api('DELETE', base, { path: f.relativePath }); await list.reload(); onChanged(); }}>Delete</Action>,
          ])} />
      )}
    </section>
  );
}
