import type { RecordCollection } from '../state/record-collection.ts';
import type { AgentRecord } from '../state/schemas.ts';

/** Where a site name stood in one agent record's allowedSites, to put it back there. */
export interface SiteGrant {
  key: string;
  index: number;
}

/**
 * Takes a site name out of every agent record's allowedSites in one synchronous change, so no
 * grant can slip in halfway; answers, once on disk, who had it and where. Allowed sites are
 * names: a grant left behind would silently cover a later site of the same name.
 */
export function withdrawSiteGrants(agents: RecordCollection<AgentRecord>, name: string): Promise<SiteGrant[]> {
  return agents.edit((draft) => {
    const withdrawn: SiteGrant[] = [];
    for (const agent of [...draft.values()]) {
      const index = agent.allowedSites.indexOf(name);
      if (index < 0) continue;
      withdrawn.push({ key: agents.keyOf(agent), index });
      draft.put({ ...agent, allowedSites: agent.allowedSites.filter((site) => site !== name) });
    }
    return withdrawn;
  });
}

/** The undo of `withdrawSiteGrants`: the records that had the name get it back at its place. */
export function restoreSiteGrants(agents: RecordCollection<AgentRecord>, name: string, grants: readonly SiteGrant[]): Promise<void> {
  return agents.edit((draft) => {
    for (const { key, index } of grants) {
      const agent = draft.get(key);
      if (!agent || agent.allowedSites.includes(name)) continue;
      draft.put({ ...agent, allowedSites: agent.allowedSites.toSpliced(index, 0, name) });
    }
  });
}
