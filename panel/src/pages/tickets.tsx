import { useState } from 'preact/hooks';
import { api, type GetAnswer } from '../api.ts';
import { Action, Submit } from '../components/action.tsx';
import { Field, Select } from '../components/field.tsx';
import { ErrorText, Loading, Unavailable } from '../components/notice.tsx';
import { Badge, Table } from '../components/table.tsx';
import { useForm } from '../form.ts';
import { when } from '../format.ts';
import { useResource } from '../resource.ts';
import { RegisterScope } from './register-scope.tsx';

type Instance = GetAnswer<'/api/tickets/scopes'>['instances'][number];

const REFRESH_MS = 5000;
const enc = encodeURIComponent;

function AssignForm({ instances, onDone }: { instances: readonly Instance[]; onDone(): Promise<void> }) {
  const live = instances.filter((i) => i.status !== 'dead').map((i) => i.instanceScope);
  const form = useForm({ agentLabel: '', instanceScope: '' });
  const chosen = form.values.instanceScope || live[0] || '';
  return (
    <form onSubmit={(e) => { e.preventDefault(); void form.submit(async () => {
      const agentLabel = form.values.agentLabel.trim();
      await api('POST', '/api/tickets/assignments', { agentLabel, instanceScope: chosen });
      form.reset();
      await onDone();
      return agentLabel;
    }, (agentLabel) => `${agentLabel} assigned to ${chosen}.`); }}>
      <h3>New assignment</h3>
      <ErrorText message={form.error} />
      <div class="grid">
        <Field label="Agent label" value={form.values.agentLabel} onInput={(v) => form.set('agentLabel', v)} error={form.fieldErrors.agentLabel} required />
        {live.length ? <Select label="Instance" value={chosen} options={live} onChange={(v) => form.set('instanceScope', v)} />
          : <Field label="Instance scope" value={form.values.instanceScope} onInput={(v) => form.set('instanceScope', v)} error={form.fieldErrors.instanceScope} required />}
      </div>
      <Submit busy={form.busy}>Assign</Submit>
    </form>
  );
}

export function TicketsPage() {
  const overview = useResource('/api/tickets/scopes', REFRESH_MS);
  const tickets = useResource('/api/tickets', REFRESH_MS);
  const sessions = useResource('/api/tickets/sessions', REFRESH_MS);
  const [error, setError] = useState<string>();
  if (overview.unavailable) return <><h1>Tickets</h1><Unavailable feature="Tickets" /></>;
  const reloadAll = async () => { await Promise.all([overview.reload(), tickets.reload(), sessions.reload()]); };
  const o = overview.data;
  return (
    <>
      <h1>Tickets</h1>
      <p class="muted" role="status">Refreshed every {REFRESH_MS / 1000} s.</p>
      <ErrorText message={overview.error ?? tickets.error ?? sessions.error ?? error} />
      {!o ? <Loading /> : (
        <>
          <section class="card" aria-labelledby="scopes-title">
            <h2 id="scopes-title">Scopes</h2>
            <Table head={['Scope', 'Version', 'Capabilities', 'Transport', 'Actions']} empty="No scopes registered. An agent registers its scope through the API, or paste its manifest below."
              rows={o.scopes.map((s) => [s.name, s.version, s.scopes.map((c) => c.name).join(', '), `${s.transport.strategies.join('/')} ${s.transport.protocol}`,
                <Action kind="danger" label={`Delete scope ${s.name}`} onError={setError} confirm={`Delete the scope ${s.name}, with its instances, assignments, tickets and sessions?`} done={`Scope ${s.name} deleted.`}
                  run={async () => { await api('DELETE', `/api/tickets/scopes/${enc(s.name)}`); await reloadAll(); }}>Delete</Action>])} />
            <RegisterScope onDone={overview.reload} />
          </section>
          <section class="card" aria-labelledby="instances-title">
            <h2 id="instances-title">Instances</h2>
            <Table head={['Instance', 'Agent', 'Status', 'Last heartbeat', 'Actions']} empty="No instances."
              rows={o.instances.map((i) => [<code>{i.instanceScope}</code>, i.agentLabel, <Badge status={i.status} />, when(i.lastHeartbeat),
                <Action kind="danger" label={`Remove instance ${i.instanceId}`} onError={setError} confirm={`Remove the instance ${i.instanceScope}?`} done={`Instance ${i.instanceScope} removed.`}
                  run={async () => { await api('DELETE', `/api/tickets/instances/${enc(i.instanceId)}`); await reloadAll(); }}>Remove</Action>])} />
          </section>
          <section class="card" aria-labelledby="assignments-title">
            <h2 id="assignments-title">Assignments</h2>
            <Table head={['Agent', 'Instance', 'Assigned', 'By', 'Actions']} empty="No assignments."
              rows={o.assignments.map((a) => [a.agentLabel, <code>{a.instanceScope}</code>, when(a.assignedAt), a.assignedBy,
                <Action kind="danger" label={`Remove assignment of ${a.agentLabel}`} onError={setError} confirm={`Remove the assignment of ${a.agentLabel} to ${a.instanceScope}?`} done={`Assignment of ${a.agentLabel} removed.`}
                  run={async () => { await api('DELETE', `/api/tickets/assignments/${enc(a.agentLabel)}/${enc(a.instanceScope)}`); await overview.reload(); }}>Remove</Action>])} />
            <AssignForm instances={o.instances} onDone={overview.reload} />
          </section>
        </>
      )}
      <section class="card" aria-labelledby="tickets-title">
        <h2 id="tickets-title">Tickets</h2>
        {!tickets.data ? <Loading /> : (
          <Table head={['Ticket', 'Scope', 'From → to', 'Expires', 'State', 'Actions']} empty="No tickets. An agent asks for one when it calls an instance of a scope: assign it to that instance above first."
            rows={tickets.data.tickets.map((t) => [<code>{t.id.slice(0, 12)}…</code>, t.scope, `${t.source} → ${t.target}`, when(t.expiresAt),
              t.revokedAt ? 'revoked' : t.used ? 'used' : 'unused',
              t.revokedAt ? '—' : <Action kind="danger" label={`Revoke ticket ${t.id.slice(0, 12)}`} onError={setError} confirm="Revoke this ticket? Its session ends." done="Ticket revoked."
                run={async () => { await api('DELETE', `/api/tickets/${enc(t.id)}`); await reloadAll(); }}>Revoke</Action>])} />
        )}
      </section>
      <section class="card" aria-labelledby="sessions-title">
        <h2 id="sessions-title">Sessions</h2>
        {!sessions.data ? <Loading /> : (
          <Table head={['Session', 'Scope', 'From → to', 'Status', 'Last activity', 'Actions']} empty="No sessions."
            rows={sessions.data.sessions.map((s) => [<code>{s.sessionId.slice(0, 12)}…</code>, s.scope, `${s.source} → ${s.target}`,
              <>{<Badge status={s.status} />}{s.endReason ? ` (${s.endReason})` : ''}</>, when(s.lastActivityAt),
              s.status === 'dead' ? '—' : <Action kind="danger" label={`Kill session ${s.sessionId.slice(0, 12)}`} onError={setError} confirm="Kill this session?" done="Session killed."
                run={async () => { await api('DELETE', `/api/tickets/sessions/${enc(s.sessionId)}`); await sessions.reload(); }}>Kill</Action>])} />
        )}
      </section>
    </>
  );
}
