import { AppError } from '../errors.ts';
import { jsonBytes } from '../json-bytes.ts';
import { KeyedLock } from '../keyed-lock.ts';
import { SharedGate } from '../shared-gate.ts';
import type { SiteRecord } from '../state/schemas.ts';
import { findSite, SITE_NOT_FOUND, type SiteContext, type SiteDeps } from './context.ts';
import { createSite } from './create.ts';
import { listDirectory, type FileEntry } from './files/listing.ts';
import { directorySize } from '../system/common/fs.ts';
import { placeholderBytes } from './files/placeholder.ts';
import { removeEntry } from './files/removal.ts';
import { storeUploads, type IncomingFile } from './files/upload.ts';
import { UPLOAD_FAILED } from '../upload-refusals.ts';
import { formatBytes } from './format-bytes.ts';
import { SitePathError } from './files/safe-path.ts';
import { deleteSite } from './remove.ts';
import { SiteReservations } from './reservations.ts';
import type { SiteCreate, SitePatch } from './schema.ts';
import { updateSite, type SiteUpdate } from './update.ts';
import { verifySiteDns, type DnsVerification } from './verify-dns.ts';
import type { SiteViewer } from './viewer.ts';

export type { SiteDeps } from './context.ts';

export interface UploadResult {
  files: string[];
  warning?: string;
  totalSize?: number;
}

/** A refused client path answers 400 `{error}` with the reason, optionally behind the route's prefix. */
async function refusedPathIs400<T>(work: Promise<T>, prefix = ''): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof SitePathError) throw new AppError(400, `${prefix}${error.message}`);
    throw error;
  }
}

const newestFirst = (a: SiteRecord, b: SiteRecord) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0);


export class SiteService {
  /** `{"sites":[...]}` newest first, serialized once per change of the collection (the admin's view). */
  readonly listJson: () => Uint8Array<ArrayBuffer>;
  readonly #newestFirst: () => SiteRecord[];
  readonly #ctx: SiteContext;
  /** a certificate mode switch waits for the changes under way and holds back new ones (lib/shared-gate.ts) */
  readonly #gate: SharedGate;

  constructor(deps: SiteDeps) {
    // reversed first: the sort is stable, so records created in the same millisecond stay newest first
    this.#newestFirst = deps.store.sites.memo((sites) => [...sites].reverse().sort(newestFirst));
    this.listJson = deps.store.sites.memo(() => jsonBytes({ sites: this.#newestFirst() }));
    this.#ctx = { ...deps, reservations: new SiteReservations(), locks: new KeyedLock() };
    this.#gate = deps.modeGate ?? new SharedGate();
  }

  /** The list as an agent sees it: only its allowedSites. */
  listFor(allowedSites: readonly string[]): SiteRecord[] {
    return this.#newestFirst().filter((s) => allowedSites.includes(s.name));
  }

  /** The list as a viewer sees it: all of it for an admin. */
  visibleTo(viewer: SiteViewer): SiteRecord[] {
    return viewer.role === 'agent' ? this.listFor(viewer.allowedSites) : this.#newestFirst();
  }

  create(input: SiteCreate): Promise<SiteRecord> {
    return this.#gate.shared(() => createSite(this.#ctx, input));
  }

  update(id: string, patch: SitePatch): Promise<SiteUpdate> {
    return this.#gate.shared(() => updateSite(this.#ctx, id, patch));
  }

  delete(id: string): Promise<void> {
    return this.#gate.shared(() => deleteSite(this.#ctx, id));
  }

  verifyDns(id: string): Promise<DnsVerification> {
    return verifySiteDns(this.#ctx, id);
  }

  /** The site the viewer may use: 404 when there is none, 403 when an agent was not given it. */
  visibleSite(id: string, viewer: SiteViewer): SiteRecord {
    const site = findSite(this.#ctx, id);
    if (!site) throw new AppError(404, SITE_NOT_FOUND);
    if (viewer.role === 'agent' && !viewer.allowedSites.includes(site.name)) throw new AppError(403, 'You do not have access to this site');
    return site;
  }

  listFiles(site: SiteRecord, path: string): Promise<FileEntry[]> {
    return refusedPathIs400(listDirectory(site.rootPath, path));
  }

  /** Removes a file or folder and records the site's new size; one change per site at a time. */
  removeFile(site: SiteRecord, path: string): Promise<void> {
    return this.#ctx.locks.run(site.id, async () => {
      await refusedPathIs400(removeEntry(site.rootPath, path));
      await this.#recordSize(site.id);
    });
  }

  /**
   * Stores the files under `dir` and records the site's new size. Over `maxSiteSize` the upload is
   * kept and the answer carries a warning. One change per site at a time, so `totalSize` always
   * matches the disk.
   */
  uploadFiles(site: SiteRecord, dir: string, files: readonly IncomingFile[]): Promise<UploadResult> {
    return this.#ctx.locks.run(site.id, async () => {
      const stored = await refusedPathIs400(storeUploads(site.rootPath, dir, files), UPLOAD_FAILED);
      const totalSize = await this.#recordSize(site.id);
      const limit = this.#ctx.config.value.maxSiteSize;
      if (totalSize <= limit) return { files: stored };
      return { files: stored, warning: `Site size (${formatBytes(totalSize)}) exceeds the ${formatBytes(limit)} size limit`, totalSize };
    });
  }

  /** Measures the uploaded files on disk (not the placeholder page) and saves it as the site's totalSize. */
  async #recordSize(id: string): Promise<number> {
    const site = findSite(this.#ctx, id);
    if (!site) return 0;
    const totalSize = (await directorySize(site.rootPath)) - (await placeholderBytes(site.rootPath, site.name));
    if (totalSize !== site.totalSize) {
      await this.#ctx.store.sites.edit((draft) => {
        const record = draft.get(id);
        if (record) draft.put({ ...record, totalSize });
      });
    }
    return totalSize;
  }
}
