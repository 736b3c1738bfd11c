import { useEffect, useRef, useState } from 'preact/hooks';
import { api, type GetAnswer, type UrlAnswer } from '../api.ts';
import { Action, Submit } from '../components/action.tsx';
import { Check, Field } from '../components/field.tsx';
import { ListControls, Pager, useListView } from '../components/list-controls.tsx';
import { rememberFocus, useRevealed } from '../components/focus-return.ts';
import { ErrorText, Loading, Note, Unavailable } from '../components/notice.tsx';
import { Copyable, QrCode, ShownOnce } from '../components/secret.tsx';
import { Badge, Table } from '../components/table.tsx';
import { enrollCommand } from '../enroll-command.ts';
import { useForm } from '../form.ts';
import { commaList, when } from '../format.ts';
import type { ListSpec } from '../list-view.ts';
import { useResource, type Resource } from '../resource.ts';
import { CertLimits } from './cert-limits.tsx';
import { HardwareBound } from './hardware-bound.tsx';

type CertList = GetAnswer<'/api/certs'>;
type Rotated = UrlAnswer<'POST', '/api/certs/mtls/rotate'>;
type Agent = GetAnswer<'/api/certs/agent'>['agents'][number];

const BASE_CAPABILITIES = ['tunnels:read', 'tunnels:write', 'services:read', 'services:write', 'system:read', 'sites:read', 'sites:write'];
const enc = encodeURIComponent;
/** How a certificate's key was made, for the admin certificate and for agents alike. */
const KEY_KIND = { p12: 'PKCS#12 bundle', 'hardware-bound': 'hardware-bound' } as const;

function Capabilities({ value, onChange }: { value: string[]; onChange(v: string[]): void }) {
  const base = value.filter((c) => BASE_CAPABILITIES.includes(c));
  const extra = value.filter((c) => !BASE_CAPABILITIES.includes(c));
  // The text is kept as typed (a trailing comma included) and follows resets from the parent.
  const [text, setText] = useState(extra.join(', '));
  useEffect(() => { if (commaList(text).join() !== extra.join()) setText(extra.join(', ')); }, [extra.join()]);
  return (
    <fieldset>
      <legend>Capabilities</legend>
      {BASE_CAPABILITIES.map((c) => (
        <Check key={c} label={c} checked={value.includes(c)} onChange={(on) => onChange(on ? [...value, c] : value.filter((v) => v !== c))} />
      ))}
      <Field label="Other capabilities (ticket scopes, plugins)" value={text} hint="Comma-separated, scope:action"
        onInput={(typed) => { setText(typed); onChange([...base, ...commaList(typed)]); }} />
    </fieldset>
  );
}

function LetsEncrypt({ certs }: { certs: Resource<CertList> }) {
  const renew = useResource('/api/certs/auto-renew-status');
  if (certs.unavailable) return <section class="card"><h2>TLS certificates</h2><Unavailable feature="Certificates" /></section>;
  return (
    <section class="card" aria-labelledby="le-title">
      <h2 id="le-title">TLS certificates</h2>
      {renew.data && <p>Auto-renew: <Badge status={renew.data.active ? 'active' : 'inactive'} /> next run {when(renew.data.nextRun)}, last run {when(renew.data.lastRun)}.</p>}
      <ErrorText message={certs.error ?? renew.error} />
      {!certs.data ? <Loading /> : (
        <Table head={['Certificate', 'Type', 'Expires', 'Days left', 'Actions']} empty="No certificates."
          rows={certs.data.certs.map((c) => [c.domain, c.type, when(c.expiresAt), <span class={c.expiringSoon ? 'bad' : ''}>{c.daysUntilExpiry}</span>,
            <Action label={`Renew ${c.domain}`} confirm={`Renew the certificate ${c.domain} now?`} done={`Certificate ${c.domain} renewed.`}
              run={async () => { await api('POST', `/api/certs/${enc(c.domain)}/renew`); await certs.reload(); }}>Renew</Action>])} />
      )}
    </section>
  );
}

function AdminRotation({ certs }: { certs: Resource<CertList> }) {
  const [rotated, setRotated] = useState<Rotated>();
  // the bundle is handed out once: after that the link would answer nothing a browser shows
  const [fetched, setFetched] = useState(false);
  const admin = certs.data?.adminCertificate;
  const pending = admin?.rotation?.state === 'pending' ? admin.rotation : undefined;
  return (
    <section class="card" aria-labelledby="rotate-title">
      <h2 id="rotate-title">Admin certificate</h2>
      {admin && (
        <dl class="facts">
          <div><dt>Serial</dt><dd>{admin.serial ?? 'issued outside the panel'}</dd></div>
          <div><dt>Expires</dt><dd>{when(admin.expiresAt)}</dd></div>
          <div><dt>Kind</dt><dd>{KEY_KIND[admin.authMode]}</dd></div>
        </dl>
      )}
      {pending && <Note kind="warn">A rotation is pending: the old certificate works until the new one is used, at the latest until {when(pending.graceEndsAt)}.</Note>}
      {admin?.authMode === 'hardware-bound' ? <p>The admin certificate is hardware-bound: it cannot be rotated here.</p> : (
        <>
          <p>Rotation issues a new admin certificate. The old one stops working once the new one is used, or after the grace period.</p>
          <Action confirm="Issue a new admin certificate? Install it in your browser before the grace period ends."
            done="New admin certificate issued: download it below." run={async () => { setRotated(await api('POST', '/api/certs/mtls/rotate')); setFetched(false); await certs.reload(); }}>Rotate admin certificate</Action>
        </>
      )}
      {rotated && (
        <>
          <Note kind="warn">{rotated.warning} Grace period ends {when(rotated.graceEndsAt)}.</Note>
          <ShownOnce title="Password of the new certificate (.p12)" values={{ 'P12 password': rotated.p12Password }} />
          {fetched ? <p class="muted" role="status">Downloaded: the bundle is handed out once. Rotate again to get a new one.</p>
            // after the click has started the download: removed at once, the link might not follow
            : <p><a class="btn btn-primary" href="/api/certs/mtls/download" download onClick={() => setTimeout(() => setFetched(true))}>Download the new certificate (once)</a></p>}
        </>
      )}
    </section>
  );
}

function IssueAgent({ onDone }: { onDone(): Promise<void> }) {
  const form = useForm({ label: '', capabilities: ['tunnels:read'], allowedSites: '' });
  const [issued, setIssued] = useState<{ label: string; password: string }>();
  return (
    <form aria-labelledby="issue-agent" onSubmit={(e) => { e.preventDefault(); void form.submit(async () => {
      const label = form.values.label.trim();
      const made = await api('POST', '/api/certs/agent', { label, capabilities: form.values.capabilities, allowedSites: commaList(form.values.allowedSites) });
      setIssued({ label: made.label, password: made.p12Password });
      form.reset();
      await onDone();
      return made.label;
    }, (issuedTo) => `Certificate of ${issuedTo} issued: keep its password, shown below.`); }}>
      <h3 id="issue-agent">Issue an agent certificate</h3>
      <ErrorText message={form.error} />
      <Field label="Agent label" value={form.values.label} onInput={(v) => form.set('label', v)} error={form.fieldErrors.label} hint="Lowercase letters, digits and hyphens" required />
      <Capabilities value={form.values.capabilities} onChange={(v) => form.set('capabilities', v)} />
      {form.fieldErrors.capabilities && <p class="field-error">{form.fieldErrors.capabilities}</p>}
      <Field label="Allowed sites" value={form.values.allowedSites} onInput={(v) => form.set('allowedSites', v)} error={form.fieldErrors.allowedSites} hint="Comma-separated site names" />
      <Submit busy={form.busy}>Issue certificate</Submit>
      {issued && (
        <>
          <ShownOnce title={`Certificate of ${issued.label}`} values={{ 'P12 password': issued.password }} onDone={() => setIssued(undefined)} />
          <p><a class="btn" href={`/api/certs/agent/${enc(issued.label)}/download`} download>Download {issued.label}.p12</a></p>
        </>
      )}
    </form>
  );
}

function Enrollment() {
  const form = useForm({ label: '', capabilities: ['tunnels:read'] });
  const [token, setToken] = useState<{ token: string; label: string; expiresAt: string }>();
  const command = token && enrollCommand(location.origin, token.token);
  return (
    <form aria-labelledby="enroll-title" onSubmit={(e) => { e.preventDefault(); void form.submit(async () => {
      setToken(await api('POST', '/api/certs/agent/enroll', { label: form.values.label.trim(), capabilities: form.values.capabilities }));
    }, 'Enrollment token created: run the command below on the agent.'); }}>
      <h3 id="enroll-title">Enrollment token</h3>
      <p>The agent makes its own key and sends a signing request with this one-time token; the key never leaves the agent.
        Run the command in the agent's directory (it needs sh, openssl, curl and jq): it writes agent.key and agent.crt, never replaces them, and is safe to run again.</p>
      <ErrorText message={form.error} />
      <Field label="Label of the enrolling agent" value={form.values.label} onInput={(v) => form.set('label', v)} error={form.fieldErrors.label} required />
      <Capabilities value={form.values.capabilities} onChange={(v) => form.set('capabilities', v)} />
      <Submit busy={form.busy}>Create token</Submit>
      {token && command && (
        <>
          <Note kind="warn">For {token.label}, valid until {when(token.expiresAt)}, once. It is shown only now.</Note>
          <Copyable label="Enrollment command" text={command} />
          <QrCode text={JSON.stringify({ panel: location.origin, token: token.token })} label="Enrollment QR code" />
        </>
      )}
    </form>
  );
}

function AgentEditor({ agent, reload, onClose }: { agent: Agent; reload(): Promise<void>; onClose(): void }) {
  // it opens below the agents table, often out of view: brought there with focus on its heading
  const heading = useRevealed<HTMLHeadingElement>();
  const form = useForm({ capabilities: agent.capabilities, allowedSites: agent.allowedSites.join(', ') });
  return (
    <form aria-labelledby="edit-agent" onSubmit={(e) => { e.preventDefault(); void form.submit(async () => {
      // One request for both lists: the server checks every value before writing either.
      try {
        await api('PATCH', `/api/certs/agent/${enc(agent.label)}`, { capabilities: form.values.capabilities, allowedSites: commaList(form.values.allowedSites) });
      } finally {
        // The table shows what is stored after every save, a refused one included.
        await reload();
      }
      onClose();
    }, `Agent ${agent.label} updated.`); }}>
      <h3 id="edit-agent" ref={heading} tabIndex={-1}>Edit {agent.label}</h3>
      <ErrorText message={form.error} />
      <Capabilities value={form.values.capabilities} onChange={(v) => form.set('capabilities', v)} />
      <Field label="Allowed sites" value={form.values.allowedSites} onInput={(v) => form.set('allowedSites', v)} error={form.fieldErrors.allowedSites} hint="Comma-separated site names" />
      <div class="row"><Submit busy={form.busy}>Save</Submit><button type="button" class="btn" onClick={onClose}>Cancel</button></div>
    </form>
  );
}

const AGENT_SPEC: ListSpec<Agent> = {
  key: (a) => a.label,
  text: (a) => [a.label, a.serial, ...a.capabilities, ...a.allowedSites],
  states: { active: (a) => !a.revoked, revoked: (a) => a.revoked },
  sorts: { agent: (a) => a.label, expires: (a) => a.expiresAt ?? '' },
};
const AGENT_STATES = [{ value: 'active', label: 'active' }, { value: 'revoked', label: 'revoked' }];

function Agents() {
  const agents = useResource('/api/certs/agent');
  const [editing, setEditing] = useState<Agent>();
  const view = useListView(agents.data?.agents, AGENT_SPEC);
  // the Edit button that opened the editor, where focus goes back when it closes
  const focusBack = useRef<(() => void) | undefined>(undefined);
  const edit = (agent: Agent) => { focusBack.current = rememberFocus(); setEditing(agent); };
  const closeEditor = () => { setEditing(undefined); focusBack.current?.(); };
  if (agents.unavailable) return <section class="card"><h2>Agents</h2><Unavailable feature="Agents" /></section>;
  return (
    <section class="card" aria-labelledby="agents-title">
      <h2 id="agents-title">Agents</h2>
      <ErrorText message={agents.error} />
      {!agents.data ? <Loading /> : (<>
        {view.total > 0 && <ListControls view={view} noun="agents" states={AGENT_STATES} />}
        <Table head={[view.sortHead('Agent', 'agent'), 'Capabilities', 'Allowed sites', 'Key', view.sortHead('Expires', 'expires'), 'State', 'Actions']}
          empty={view.total ? 'No agent matches the search and state.' : 'No agents yet. Issue a certificate or create an enrollment token below; an agent calls the API with its certificate and the capabilities given here.'} keys={view.keys} rows={view.rows.map((a) => {
            return [a.label, a.capabilities.join(', ') || '—', a.allowedSites.join(', ') || '—', KEY_KIND[a.enrollmentMethod], when(a.expiresAt), <Badge status={a.revoked ? 'revoked' : 'active'} />,
              a.revoked ? <Action kind="danger" label={`Remove ${a.label}`} confirm={`Remove the revoked agent ${a.label} from the list? Its certificate stays revoked.`} done={`Agent ${a.label} removed.`}
                run={async () => { await api('DELETE', `/api/certs/agent/${enc(a.label)}/record`); await agents.reload(); }}>Remove</Action> : <span class="actions">
                <button type="button" class="btn" aria-label={`Edit ${a.label}`} onClick={() => edit(a)}>Edit</button>
                <Action kind="danger" label={`Revoke ${a.label}`} confirm={`Revoke the certificate of ${a.label}? The agent loses access at once.`} done={`Agent ${a.label} revoked.`}
                  run={async () => { await api('DELETE', `/api/certs/agent/${enc(a.label)}`); await agents.reload(); }}>Revoke</Action>
              </span>];
          })} />
        <Pager view={view} noun="agents" />
      </>)}
      {editing && <AgentEditor key={editing.label} agent={editing} reload={agents.reload} onClose={closeEditor} />}
      <IssueAgent onDone={agents.reload} />
      <Enrollment />
    </section>
  );
}

export function CertsPage() {
  const certs = useResource('/api/certs');
  const [upgraded, setUpgraded] = useState(false);
  return (
    <>
      <h1>Certificates and agents</h1>
      <LetsEncrypt certs={certs} />
      <CertLimits />
      {!certs.unavailable && <AdminRotation certs={certs} />}
      {certs.data?.adminCertificate.authMode === 'p12' || upgraded ? <HardwareBound onUpgraded={(u) => {
        setUpgraded(true);
        // No second GET: in production the certificate this browser presents was just revoked.
        certs.update((d) => ({ ...d!, adminCertificate: { authMode: u.adminAuthMode, serial: u.serial, expiresAt: u.expiresAt, rotation: null, bundlePending: false } }));
      }} /> : null}
      <Agents />
    </>
  );
}
