// The site storage adapter as the domain services see it: site-storage.ts, one directory per site, host and sandbox alike.

export interface SiteStorageAdapter {
  /** Where a site's files live: `<sites root>/<site id>`, the directory nginx serves. */
  dirOf(siteId: string): string;
  /** Creates the (empty) directory and returns its path; fails if it exists. */
  create(siteId: string): Promise<string>;
  /** Removes the directory with everything in it; a missing one is not an error. */
  remove(siteId: string): Promise<void>;
}
