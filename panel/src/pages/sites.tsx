import { useEffect, useRef, useState } from 'preact/hooks';
import { api, type GetAnswer, type UrlAnswer, type UrlBody } from '../api.ts';
import { Action, Submit } from '../components/action.tsx';
import { Check, Field, Select } from '../components/field.tsx';
import { FileBrowser } from '../components/file-browser.tsx';
import { SiteAccess } from '../components/access-editor.tsx';
import { ListControls, Pager, useListView } from '../components/list-controls.tsx';
import { rememberFocus, useRevealed } from '../components/focus-return.ts';
import { ErrorText, Loading, Note, Unavailable } from '../components/notice.tsx';
import { Table } from '../components/table.tsx';
import { useForm } from '../form.ts';
import { bytes } from '../format.ts';
import type { ListSpec } from '../list-view.ts';
import { useResource } from '../resource.ts';
import { useSitesStatus } from '../sites-status.ts';
import { TrafficCell } from '../components/tunnel-state.tsx';
import { publicUrl } from '../public-links.ts';

type Site = GetAnswer<'/api/sites'>['sites'][number];
type DnsAnswer = UrlAnswer<'POST', '/api/sites/:id/verify-dns'>;
type SiteType = UrlBody<'POST', '/api/sites'>['type'];

const enc = encodeURIComponent;
// the server refuses protection elsewhere with a 400 saying the same (lib/portal-reach.ts)
const CUSTOM_PROTECTION_HINT = "Only for a custom domain under this relay's base domain: the portal's sign-in cookie covers nothing else";

const SITE_STATES = [
  { value: 'managed', label: 'managed' }, { value: 'custom', label: 'custom domain' },
  { value: 'live', label: 'live' }, { value: 'waiting', label: 'not live yet' },
];
const SITE_SPEC: ListSpec<Site> = {
  key: (s) => s.id,
  text: (s) => [s.name, s.fqdn, s.type],
  states: { managed: (s) => s.type === 'managed', custom: (s) => s.type === 'custom', live: (s) => s.certIssued, waiting: (s) => !s.certIssued },
  sorts: { site: (s) => s.fqdn, size: (s) => s.totalSize },
};

function CreateSite({ onDone }: { onDone(): Promise<void> }) {
  const form = useForm({ name: '', type: 'managed' as SiteType, customDomain: '', spaMode: false, autheliaProtected: false });
  const [message, setMessage] = useState<string>();
  return (
    <form class="card" aria-labelledby="new-site" onSubmit={(e) => { e.preventDefault(); void form.submit(async () => {
      const { customDomain, ...rest } = form.values;
      const made = await api('POST', '/api/sites', { ...rest, name: rest.name.trim(), ...(rest.type === 'custom' ? { customDomain: customDomain.trim() } : {}) });
      setMessage(made.message);
      form.reset();
      await onDone();
      return made.site;
    }, (site) => `Site ${site.fqdn} created.`); }}>
      <h2 id="new-site">New site</h2>
      <ErrorText message={form.error} />
      {message && <Note>{message}</Note>}
      <div class="grid">
        <Field label="Name" value={form.values.name} onInput={(v) => form.set('name', v)} error={form.fieldErrors.name} hint="Managed sites live at <name>.<domain>" required />
        <Select label="Type" value={form.values.type} options={['managed', 'custom']} onChange={(v) => form.set('type', v)} />
        {form.values.type === 'custom' && <Field label="Custom domain" value={form.values.customDomain} onInput={(v) => form.set('customDomain', v)} error={form.fieldErrors.customDomain} required />}
      </div>
      <Check label="Single-page app (unknown paths serve index.html)" checked={form.values.spaMode} onChange={(v) => form.set('spaMode', v)} />
      <Check label="Protect with the authentication portal" checked={form.values.autheliaProtected} onChange={(v) => form.set('autheliaProtected', v)}
        hint={form.values.type === 'custom' ? CUSTOM_PROTECTION_HINT : undefined} />
      <Submit busy={form.busy}>Create site</Submit>
    </form>
  );
}

/** The settings as the server stores them, so a refused save cannot be mistaken for a saved one. */
function storedSettings(site: Site): string {
  const users = site.allowedUsers?.length ? site.allowedUsers.join(', ') : 'every signed-in user';
  return `Single-page app: ${site.spaMode ? 'on' : 'off'}; portal protection: ${site.autheliaProtected ? 'on' : 'off'}; allowed users: ${users}`;
}

function SiteSettings({ site, onDone, onClose }: { site: Site; onDone(): Promise<void>; onClose(): void }) {
  const heading = useRevealed<HTMLHeadingElement>();
  const storedUsers = (site.allowedUsers ?? []).join(', ');
  const form = useForm({ spaMode: site.spaMode, autheliaProtected: site.autheliaProtected, allowedUsers: storedUsers });
  // the Access section beside it also sets the allowed users: a stale field here would send the old list back and undo it
  useEffect(() => form.set('allowedUsers', storedUsers), [storedUsers]);
  const [message, setMessage] = useState<string>();
  return (
    <form class="card" aria-labelledby="site-settings" onSubmit={(e) => { e.preventDefault(); setMessage(undefined); void form.submit(async () => {
      const allowedUsers = form.values.allowedUsers.split(',').map((u) => u.trim()).filter(Boolean);
      try {
        const r = await api('PATCH', `/api/sites/${enc(site.id)}`, { ...form.values, allowedUsers });
        form.set('allowedUsers', (r.site.allowedUsers ?? []).join(', '));
        setMessage(r.message ?? 'Saved.');
        return r.message;
      } finally {
        // saved or refused, the summary below comes from the server again
        await onDone();
      }
    }, (unchanged) => (unchanged ? undefined : `Site ${site.fqdn} updated.`)); }}>
      <h3 id="site-settings" ref={heading} tabIndex={-1}>Settings of {site.name}</h3>
      <ErrorText message={form.error} />
      {message && <Note kind="ok">{message}</Note>}
      <p data-testid="stored-settings">Stored now: {storedSettings(site)}</p>
      <Check label="Single-page app" checked={form.values.spaMode} onChange={(v) => form.set('spaMode', v)} />
      <Check label="Protected by the portal" checked={form.values.autheliaProtected} onChange={(v) => form.set('autheliaProtected', v)}
        hint={site.type === 'custom' ? CUSTOM_PROTECTION_HINT : undefined} />
      <Field label="Allowed users" value={form.values.allowedUsers} onInput={(v) => form.set('allowedUsers', v)} error={form.fieldErrors.allowedUsers} hint="Comma-separated portal usernames (each must exist on the Users page); empty allows every signed-in user" />
      <div class="row">
        <Submit busy={form.busy}>Save settings</Submit>
        <button type="button" class="btn" aria-label={`Close settings of ${site.name}`} onClick={onClose}>Close</button>
      </div>
    </form>
  );
}

export function SitesPage() {
  const list = useResource('/api/sites');
  const traffic = useSitesStatus();
  const trafficOf = (id: string) => traffic.data?.sites.find((x) => x.id === id);
  const [open, setOpen] = useState<{ id: string; view: 'files' | 'settings' }>();
  // the button that opened the panel, where focus goes back when it closes
  const focusBack = useRef<(() => void) | undefined>(undefined);
  const show = (id: string, view: 'files' | 'settings') => { focusBack.current = rememberFocus(); setOpen({ id, view }); };
  const close = () => { setOpen(undefined); focusBack.current?.(); };
  const [dns, setDns] = useState<DnsAnswer>();
  const [settingsSaves, setSettingsSaves] = useState(0);
  const view = useListView(list.data?.sites, SITE_SPEC);
  if (list.unavailable) return <><h1>Sites</h1><Unavailable feature="Static sites" /></>;
  const sites = list.data?.sites ?? [];
  const selected = sites.find((s) => s.id === open?.id);
  return (
    <>
      <h1>Sites</h1>
      <CreateSite onDone={list.reload} />
      <section class="card" aria-labelledby="site-list">
        <h2 id="site-list">Sites</h2>
        <ErrorText message={list.error} />
        {dns && <Note kind={dns.ok ? 'ok' : 'warn'}>{dns.message}{'resolvedIps' in dns ? ` (expected ${dns.expectedIp}; ${dns.fqdn} resolves to ${dns.resolvedIps.length ? dns.resolvedIps.join(', ') : 'nothing'})` : ''}</Note>}
        {!list.data ? <Loading /> : (<>
          {view.total > 0 && <ListControls view={view} noun="sites" states={SITE_STATES} />}
          <Table head={[view.sortHead('Site', 'site'), 'Type', 'Live', view.sortHead('Size', 'size'), 'Last hour', 'Actions']} empty={view.total ? 'No site matches the search and state.' : "No sites yet. Create one above: a managed site lives at its name under this relay's domain; then upload its files with Files."}
            keys={view.keys} rows={view.rows.map((s) => [<a href={publicUrl(s.fqdn)}>{s.fqdn}</a>, s.type, s.certIssued ? 'yes' : s.dnsVerified ? 'DNS ok' : 'waiting for DNS', bytes(s.totalSize),
              <TrafficCell status={trafficOf(s.id)} />,
              <span class="actions">
                <button type="button" class="btn" aria-label={`Files of ${s.name}`} onClick={() => show(s.id, 'files')}>Files</button>
                <button type="button" class="btn" aria-label={`Settings of ${s.name}`} onClick={() => show(s.id, 'settings')}>Settings</button>
                {s.type === 'custom' && !s.certIssued && <Action label={`Verify DNS of ${s.name}`}
                  run={async () => { setDns(await api('POST', `/api/sites/${enc(s.id)}/verify-dns`)); await list.reload(); }}>Verify DNS</Action>}
                <Action kind="danger" label={`Delete ${s.name}`} confirm={`Delete the site ${s.fqdn} and all its files?`} done={`Site ${s.fqdn} deleted.`}
                  run={async () => { await api('DELETE', `/api/sites/${enc(s.id)}`); if (open?.id === s.id) setOpen(undefined); await list.reload(); }}>Delete</Action>
              </span>])} />
          <Pager view={view} noun="sites" />
        </>)}
      </section>
      {selected && open?.view === 'files' && <FileBrowser key={selected.id} siteId={selected.id} siteName={selected.name} onChanged={() => void list.reload()} onClose={close} />}
      {selected && open?.view === 'settings' && <SiteSettings key={selected.id} site={selected} onDone={async () => { await list.reload(); setSettingsSaves((n) => n + 1); }} onClose={close} />}
      {selected && open?.view === 'settings' && (
        // read again after a settings save, which can change the allowed users it holds
        <section class="card" aria-labelledby="site-access"><h3 id="site-access">Access to {selected.name}</h3><SiteAccess key={`${selected.id}/${settingsSaves}`} id={selected.id} onSaved={list.reload} /></section>
      )}
    </>
  );
}
