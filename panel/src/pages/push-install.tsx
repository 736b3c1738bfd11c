// Push-install (/api/plugins/push-install/*): the switch and default policy, the policies, the
// agents' open time-limited windows (listed by the server, so a reload keeps them), pushes to an
// agent and the list of requested pushes. The relay has no channel to agents: an agent reads what
// was pushed to it from its agent-status route.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api, withQuery, type GetAnswer } from '../api.ts';
import { Action, Submit } from '../components/action.tsx';
import { Check, Field, Select, type Option } from '../components/field.tsx';
import { ErrorText, Loading, Note, Unavailable } from '../components/notice.tsx';
import { Badge, Table } from '../components/table.tsx';
import { useForm } from '../form.ts';
import { commaList, when } from '../format.ts';
import { useResource, type Resource } from '../resource.ts';

const ACTIONS = ['install', 'update', 'uninstall', 'check-prerequisites'] as const;
/** Needs no package: the agent checks it can install plugins. */
const CHECK = 'check-prerequisites';
type PushAction = (typeof ACTIONS)[number];
/** What this page shows and edits of the configuration. */
type Config = Pick<GetAnswer<'/api/plugins/push-install/config'>, 'enabled' | 'defaultPolicy'>;
type Policy = GetAnswer<'/api/plugins/push-install/policies'>['policies'][number];
type Grant = GetAnswer<'/api/plugins/push-install/grants'>['grants'][number];
type PushSession = GetAnswer<'/api/plugins/push-install/sessions'>['sessions'][number];

const BASE = '/api/plugins/push-install';
/** The policy the server always keeps (it refuses to delete it). */
const DEFAULT_POLICY = 'default';
const enc = encodeURIComponent;

/** The agent to act on: a choice of active agents, or a text box while none is listed. */
function AgentChoice({ labels, value, onChange, error }: { labels: string[]; value: string; onChange(v: string): void; error?: string }) {
  return labels.length
    ? <Select label="Agent" value={value} options={labels} onChange={onChange} error={error} />
    : <Field label="Agent label" value={value} onInput={onChange} error={error} required />;
}

function SwitchForm({ config, policies, onSaved }: { config: Config; policies: Policy[]; onSaved(c: Config): void }) {
  const form = useForm({ enabled: config.enabled, defaultPolicy: config.defaultPolicy });
  const options: Option[] = policies.map((p) => ({ value: p.id, label: p.name }));
  return (
    <form onSubmit={(e) => { e.preventDefault(); void form.submit(async () => {
      const { enabled, defaultPolicy } = await api('PATCH', `${BASE}/config`, form.values);
      onSaved({ enabled, defaultPolicy });
    }); }}>
      <ErrorText message={form.error} />
      <Check label="Push install on" checked={form.values.enabled} onChange={(v) => form.set('enabled', v)} />
      <Select label="Default policy" value={form.values.defaultPolicy} options={options} onChange={(v) => form.set('defaultPolicy', v)} error={form.fieldErrors.defaultPolicy} />
      <Submit busy={form.busy}>Save push-install settings</Submit>
    </form>
  );
}

function PolicyForm({ policy, onDone, onCancel }: { policy?: Policy; onDone(): Promise<void>; onCancel?(): void }) {
  const form = useForm({
    name: policy?.name ?? '', id: '', description: policy?.description ?? '',
    allowedPlugins: policy?.allowedPlugins.join(', ') ?? '', allowedActions: policy?.allowedActions ?? (['install', 'update', CHECK] as PushAction[]),
    allowedIps: policy?.allowedIps.join(', ') ?? '', deniedIps: policy?.deniedIps.join(', ') ?? '',
  });
  const title = policy ? `Edit policy ${policy.name}` : 'New policy';
  const titleId = policy ? 'edit-policy' : 'new-policy';
  return (
    <form aria-labelledby={titleId} onSubmit={(e) => { e.preventDefault(); void form.submit(async () => {
      const { id, ...fields } = form.values;
      const lists = { allowedPlugins: commaList(fields.allowedPlugins), allowedIps: commaList(fields.allowedIps), deniedIps: commaList(fields.deniedIps) };
      const body = { ...fields, ...lists, name: fields.name.trim() };
      if (policy) await api('PATCH', `${BASE}/policies/${enc(policy.id)}`, body);
      else await api('POST', `${BASE}/policies`, { ...body, ...(id.trim() ? { id: id.trim() } : {}) });
      form.reset();
      await onDone();
    }); }}>
      <h3 id={titleId}>{title}</h3>
      <ErrorText message={form.error} />
      <div class="grid">
        <Field label="Policy name" value={form.values.name} onInput={(v) => form.set('name', v)} error={form.fieldErrors.name} required />
        {!policy && <Field label="Policy id" value={form.values.id} onInput={(v) => form.set('id', v)} error={form.fieldErrors.id}
          hint="Lowercase letters, digits and hyphens; made from the name when left empty" />}
        <Field label="Description" value={form.values.description} onInput={(v) => form.set('description', v)} error={form.fieldErrors.description} />
        <Field label="Allowed plugins" value={form.values.allowedPlugins} onInput={(v) => form.set('allowedPlugins', v)} error={form.fieldErrors.allowedPlugins}
          hint="Comma-separated npm package names, e.g. @acme/hello; empty allows any package under the panel's allowed scopes" />
        <Field label="Allowed source addresses" value={form.values.allowedIps} onInput={(v) => form.set('allowedIps', v)} error={form.fieldErrors.allowedIps}
          hint="Where pushes may be sent from: comma-separated addresses or ranges, e.g. 192.168.1.0/24; empty allows any" />
        <Field label="Denied source addresses" value={form.values.deniedIps} onInput={(v) => form.set('deniedIps', v)} error={form.fieldErrors.deniedIps}
          hint="Refused even when allowed above" />
      </div>
      <fieldset>
        <legend>Allowed actions (none checked allows all)</legend>
        {ACTIONS.map((a) => (
          <Check key={a} label={a} checked={form.values.allowedActions.includes(a)}
            onChange={(on) => form.set('allowedActions', on ? [...form.values.allowedActions, a] : form.values.allowedActions.filter((x) => x !== a))} />
        ))}
      </fieldset>
      {form.fieldErrors.allowedActions && <p class="field-error">{form.fieldErrors.allowedActions}</p>}
      <div class="row">
        <Submit busy={form.busy}>{policy ? 'Save policy' : 'Create policy'}</Submit>
        {onCancel && <button type="button" class="btn" onClick={onCancel}>Cancel</button>}
      </div>
    </form>
  );
}

function Policies({ policies, config, onChanged }: { policies: Resource<{ policies: Policy[] }>; config?: Config; onChanged(): Promise<void> }) {
  const [editing, setEditing] = useState<Policy>();
  const [error, setError] = useState<string>();
  return (
    <section class="card" aria-labelledby="policies-title">
      <h2 id="policies-title">Policies</h2>
      <p>A policy names the plugins that may be pushed to an agent and what may be done with them.</p>
      <ErrorText message={policies.error ?? error} />
      {!policies.data ? <Loading /> : (
        <Table head={['Policy', 'Allowed plugins', 'Actions allowed', 'Updated', 'Actions']} empty="No policies yet."
          rows={policies.data.policies.map((p) => [
            <>{p.name}{p.id === config?.defaultPolicy && <small class="muted"> (default)</small>}{p.description && <small class="muted"> {p.description}</small>}</>,
            p.allowedPlugins.join(', ') || 'Any in the allowed scopes', p.allowedActions.join(', ') || 'All', when(p.updatedAt),
            <span class="actions">
              <button type="button" class="btn" aria-label={`Edit policy ${p.name}`} onClick={() => setEditing(p)}>Edit</button>
              {p.id !== DEFAULT_POLICY && <Action kind="danger" label={`Delete policy ${p.name}`} onError={setError} confirm={`Delete the policy ${p.name}?`}
                run={async () => { setError(undefined); await api('DELETE', `${BASE}/policies/${enc(p.id)}`); await onChanged(); }}>Delete</Action>}
            </span>,
          ])} />
      )}
      {editing && <PolicyForm key={editing.id} policy={editing} onCancel={() => setEditing(undefined)} onDone={async () => { setEditing(undefined); await onChanged(); }} />}
      <PolicyForm onDone={onChanged} />
    </section>
  );
}

/** A time the admin reads, with the exact instant for assistive tools and tests. */
const At = ({ iso }: { iso: string }) => <time dateTime={iso}>{when(iso)}</time>;

function Windows({ agents, policies, grants }: { agents: string[]; policies: Policy[]; grants: Resource<{ grants: Grant[] }> }) {
  const form = useForm({ label: '', durationMinutes: '60', policyId: '' });
  const [result, setResult] = useState<ComponentChildren>();
  const [error, setError] = useState<string>();
  const label = form.values.label || agents[0] || '';
  const policyName = (id: string) => policies.find((p) => p.id === id)?.name ?? id;
  const options: Option[] = [{ value: '', label: 'The default policy' }, ...policies.map((p) => ({ value: p.id, label: p.name }))];
  return (
    <section class="card" aria-labelledby="window-title">
      <h2 id="window-title">Push-install windows of agents</h2>
      <p>Pushes reach an agent only while its window is open. Opening it again replaces the window.</p>
      <ErrorText message={grants.error ?? error} />
      {!grants.data ? <Loading /> : (
        <Table caption="Open windows" head={['Agent', 'Policy', 'Opened', 'Ends', 'Actions']} empty="No window is open."
          rows={grants.data.grants.map((g) => [
            g.label, policyName(g.policyId), <At iso={g.enabledAt} />, <At iso={g.expiresAt} />,
            <Action label={`End window of ${g.label}`} onError={setError}
              run={async () => {
                setError(undefined);
                setResult(undefined);
                await api('DELETE', `${BASE}/enable/${enc(g.label)}`);
                setResult(`The window of ${g.label} is closed.`);
                await grants.reload();
              }}>End</Action>,
          ])} />
      )}
      <form aria-labelledby="open-window-title" onSubmit={(e) => { e.preventDefault(); void form.submit(async () => {
        setResult(undefined);
        const grant = await api('POST', `${BASE}/enable/${enc(label.trim())}`, {
          durationMinutes: Number(form.values.durationMinutes), ...(form.values.policyId ? { policyId: form.values.policyId } : {}),
        });
        setResult(<>{grant.label} may receive pushes under the policy {policyName(grant.policyId)} until <At iso={grant.expiresAt} />.</>);
        await grants.reload();
      }); }}>
        <h3 id="open-window-title">Open a window</h3>
        <ErrorText message={form.error} />
        <div class="grid">
          <AgentChoice labels={agents} value={label} onChange={(v) => form.set('label', v)} error={form.fieldErrors.label} />
          <Field label="Duration (minutes)" value={form.values.durationMinutes} onInput={(v) => form.set('durationMinutes', v)} error={form.fieldErrors.durationMinutes}
            inputMode="numeric" hint="5 to 480 (8 hours)" required />
          <Select label="Policy" value={form.values.policyId} options={options} onChange={(v) => form.set('policyId', v)} error={form.fieldErrors.policyId} />
        </div>
        <Submit busy={form.busy}>Open window</Submit>
      </form>
      {result && <Note kind="ok">{result}</Note>}
    </section>
  );
}

function Push({ agents, onPushed }: { agents: string[]; onPushed(): Promise<void> }) {
  const form = useForm({ label: '', packageName: '', action: 'install' as PushAction });
  const [result, setResult] = useState<string>();
  const label = form.values.label || agents[0] || '';
  return (
    <form class="card" aria-labelledby="push-title" onSubmit={(e) => { e.preventDefault(); void form.submit(async () => {
      setResult(undefined);
      const packageName = form.values.packageName.trim();
      const { session } = await api('POST', `${BASE}/${enc(label.trim())}`, { ...(packageName ? { packageName } : {}), action: form.values.action });
      setResult(session.packageName ? `Requested: ${session.action} of ${session.packageName} on ${session.label}.` : `Requested: ${session.action} on ${session.label}.`);
      form.set('packageName', '');
      await onPushed();
    }); }}>
      <h2 id="push-title">Push a plugin to an agent</h2>
      <ErrorText message={form.error} />
      <div class="grid">
        <AgentChoice labels={agents} value={label} onChange={(v) => form.set('label', v)} error={form.fieldErrors.label} />
        <Field label="Plugin package" value={form.values.packageName} onInput={(v) => form.set('packageName', v)} error={form.fieldErrors.packageName}
          hint="An npm package name the policy allows; none for check-prerequisites" required={form.values.action !== CHECK} />
        <Select label="Push action" value={form.values.action} options={ACTIONS} onChange={(v) => form.set('action', v)} error={form.fieldErrors.action} />
      </div>
      <Submit busy={form.busy}>Push</Submit>
      {result && <Note kind="ok">{result}</Note>}
    </form>
  );
}

function Sessions({ agents, policies, sessions, label, onLabel }: { agents: string[]; policies: Policy[]; sessions: Resource<{ sessions: PushSession[] }>; label: string; onLabel(v: string): void }) {
  const policyName = (id: string) => policies.find((p) => p.id === id)?.name ?? id;
  return (
    <section class="card" aria-labelledby="sessions-title">
      <h2 id="sessions-title">Requested pushes</h2>
      <Select label="Show pushes to" value={label} options={[{ value: '', label: 'All agents' }, ...agents]} onChange={onLabel} />
      <ErrorText message={sessions.error} />
      {!sessions.data ? <Loading /> : (
        <Table head={['Requested', 'Agent', 'Plugin', 'Action', 'Policy', 'Status']} empty="No pushes requested."
          rows={sessions.data.sessions.map((s) => [when(s.createdAt), s.label, s.packageName ?? '—', s.action, policyName(s.policyId), <Badge status={s.status} />])} />
      )}
    </section>
  );
}

export function PushInstallPage() {
  const config = useResource(`${BASE}/config`);
  const policies = useResource(`${BASE}/policies`);
  // polled so a window that ends while the page is open leaves the list (the server's answer is cached bytes)
  const grants = useResource(`${BASE}/grants`, 30_000);
  const agentList = useResource('/api/certs/agent');
  const [sessionLabel, setSessionLabel] = useState('');
  const sessions = useResource(withQuery('GET', `${BASE}/sessions`, { label: sessionLabel || undefined }));
  if (config.unavailable) return <><h1>Push install</h1><Unavailable feature="Push install" /></>;
  const agents = (agentList.data?.agents ?? []).filter((a) => !a.revoked).map((a) => a.label);
  const policyList = policies.data?.policies ?? [];
  return (
    <>
      <h1>Push install</h1>
      <p>Install, update or remove plugins on agents from here, within the limits of a policy and a time window. <a href="/plugins">Back to the plugins of this panel</a>.</p>
      <section class="card" aria-labelledby="switch-title">
        <h2 id="switch-title">Push install {config.data && <Badge status={config.data.enabled ? 'enabled' : 'disabled'} />}</h2>
        <ErrorText message={config.error ?? agentList.error} />
        {!config.data || !policies.data ? <Loading />
          : <SwitchForm key={JSON.stringify(config.data)} config={config.data} policies={policyList} onSaved={(c) => config.update((old) => ({ ...old!, ...c }))} />}
      </section>
      <Policies policies={policies} config={config.data} onChanged={async () => { await Promise.all([policies.reload(), config.reload()]); }} />
      <Windows agents={agents} policies={policyList} grants={grants} />
      <Push agents={agents} onPushed={sessions.reload} />
      <Sessions agents={agents} policies={policyList} sessions={sessions} label={sessionLabel} onLabel={setSessionLabel} />
    </>
  );
}
