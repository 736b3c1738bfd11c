// Alerts: the webhooks told of tunnels down, certificates, services, disk and revoked agents, the
// log of the last 200 alerts sent (state, attempts, the receiver's status code), and the switch that
// lets webhooks reach loopback and private networks, with what turning it on risks.
import { useState } from 'preact/hooks';
import { api, type GetAnswer, type UrlBody } from '../api.ts';
import { Action, Submit } from '../components/action.tsx';
import { Check, Field } from '../components/field.tsx';
import { ErrorText, Loading, Note, Unavailable } from '../components/notice.tsx';
import { Copyable } from '../components/secret.tsx';
import { Badge, Table } from '../components/table.tsx';
import { useForm } from '../form.ts';
import { when } from '../format.ts';
import { useResource, type Resource } from '../resource.ts';
import { showToast } from '../toasts.ts';

type AlertEvent = UrlBody<'POST', '/api/alerts/webhooks'>['events'][number];

const EVENTS: Record<AlertEvent, string> = {
  'tunnel.down': 'Tunnel down',
  'tunnel.up': 'Tunnel back up',
  'cert.expiring': 'Certificate expires in under 14 days',
  'cert.renewal_failed': 'Certificate renewal failed',
  'service.inactive': 'Service not active',
  'disk.low': 'Disk under 10 % free',
  'agent.revoked': 'Agent certificate revoked',
  'cert.limit_near': 'Certificate limit at 80 % of its week',
};

type Webhook = GetAnswer<'/api/alerts/webhooks'>['webhooks'][number];
type AlertSettings = GetAnswer<'/api/alerts/settings'>;
type Delivery = GetAnswer<'/api/alerts/deliveries'>['deliveries'][number];

const enc = encodeURIComponent;
const DELIVERIES_REFRESH_MS = 10_000;

function NewWebhook({ onDone }: { onDone(secret: string): Promise<void> }) {
  const form = useForm({ url: '', secret: '', tunnelDownMinutes: '5', events: Object.keys(EVENTS) as AlertEvent[] });
  const toggle = (event: AlertEvent, on: boolean) => form.set('events', on ? [...form.values.events, event] : form.values.events.filter((e) => e !== event));
  return (
    <form class="card" aria-labelledby="new-webhook" onSubmit={(e) => { e.preventDefault(); void form.submit(async () => {
      const made = await api('POST', '/api/alerts/webhooks', {
        url: form.values.url.trim(), events: form.values.events, tunnelDownMinutes: Number(form.values.tunnelDownMinutes),
        ...(form.values.secret ? { secret: form.values.secret } : {}),
      });
      form.reset();
      await onDone(made.secret);
    }, 'Webhook added: copy its secret below, then send it a test.'); }}>
      <h2 id="new-webhook">New webhook</h2>
      <ErrorText message={form.error} />
      <div class="grid">
        <Field label="URL" value={form.values.url} onInput={(v) => form.set('url', v)} error={form.fieldErrors.url} hint="http or https; receives a JSON POST per alert. Loopback and private networks only when allowed below" required />
        <Field label="Secret" type="password" value={form.values.secret} onInput={(v) => form.set('secret', v)} error={form.fieldErrors.secret} autoComplete="off" hint="Signs each alert (X-Relay-Signature); made for you when empty" />
        <Field label="Minutes a tunnel is down before an alert" value={form.values.tunnelDownMinutes} inputMode="numeric" onInput={(v) => form.set('tunnelDownMinutes', v)} error={form.fieldErrors.tunnelDownMinutes} required />
      </div>
      <fieldset>
        <legend>Events</legend>
        {(Object.entries(EVENTS) as [AlertEvent, string][]).map(([event, label]) => <Check key={event} label={label} checked={form.values.events.includes(event)} onChange={(on) => toggle(event, on)} />)}
        {form.fieldErrors.events && <small class="field-error">{form.fieldErrors.events}</small>}
      </fieldset>
      <Submit busy={form.busy}>Add webhook</Submit>
    </form>
  );
}

function PrivateTargets({ settings, onSaved }: { settings: AlertSettings; onSaved(s: AlertSettings): void }) {
  const form = useForm({ allowPrivateTargets: settings.allowPrivateTargets });
  return (
    <section class="card" aria-labelledby="private-targets-title">
      <h2 id="private-targets-title">Private targets <Badge status={settings.allowPrivateTargets ? 'allowed' : 'refused'} /></h2>
      <p class="muted">Webhooks on loopback (127.0.0.1, localhost), private networks (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7),
        single-label and .local/.internal names or this box's own domain are refused unless allowed here. Link-local and cloud metadata
        addresses (169.254.169.254), 0.0.0.0, multicast and broadcast are always refused. Each delivery checks the address the name
        resolves to at that moment.</p>
      {settings.allowPrivateTargets && (
        <Note kind="warn">Private targets are allowed: whoever can add a webhook can make this box send requests to services on it and on its
          networks that are not meant to be reached from outside. Turn this on only for a receiver on this box or your own network.</Note>
      )}
      <form onSubmit={(e) => { e.preventDefault(); void form.submit(async () => {
        const { settings: saved } = await api('PATCH', '/api/alerts/settings', form.values);
        onSaved(saved);
        return saved.allowPrivateTargets;
      }, (allowed) => `Private targets ${allowed ? 'allowed' : 'refused'}.`); }}>
        <ErrorText message={form.error} />
        <Check label="Allow private targets" checked={form.values.allowPrivateTargets} onChange={(v) => form.set('allowPrivateTargets', v)}
          hint="Lets webhooks reach loopback and private networks" />
        <Submit busy={form.busy}>Save private-targets setting</Submit>
      </form>
    </section>
  );
}

type DeliveryLog = Resource<GetAnswer<'/api/alerts/deliveries'>>;

function Deliveries({ webhooks, log }: { webhooks: Webhook[]; log: DeliveryLog }) {
  const urlOf = (id: string) => webhooks.find((w) => w.id === id)?.url ?? 'deleted webhook';
  return (
    <section class="card" aria-labelledby="deliveries-title">
      <h2 id="deliveries-title">Deliveries</h2>
      <p class="muted">The last 200 alerts. A failed one is tried again for an hour.</p>
      <ErrorText message={log.error} />
      {!log.data ? <Loading /> : (
        <Table head={['When', 'Event', 'Webhook', 'State', 'Attempts', 'Status code', 'Error']} empty="No alerts sent yet."
          rows={log.data.deliveries.map((d) => [when(d.createdAt), d.event, urlOf(d.webhookId), <Badge status={d.state} />, String(d.attempts),
            d.statusCode === null ? '—' : String(d.statusCode),
            d.error ? `${d.error}${d.nextAttemptAt ? `; next try ${when(d.nextAttemptAt)}` : ''}` : '—'])} />
      )}
    </section>
  );
}

export function AlertsPage() {
  const list = useResource('/api/alerts/webhooks');
  const log = useResource('/api/alerts/deliveries', DELIVERIES_REFRESH_MS);
  const settings = useResource('/api/alerts/settings');
  const [secret, setSecret] = useState<string>();
  if (list.unavailable) return <><h1>Alerts</h1><Unavailable feature="Alerts" /></>;
  /** The server answers once the attempt has ended: its outcome is shown now, and the log read again to show it too. */
  async function sendTest(w: Webhook): Promise<Delivery> {
    const { delivery } = await api('POST', `/api/alerts/webhooks/${enc(w.id)}/test`);
    await log.reload();
    if (delivery.state !== 'delivered') {
      const retry = delivery.nextAttemptAt ? `; tried again ${when(delivery.nextAttemptAt)}` : '';
      showToast('error', `Test alert to ${w.url} not delivered: ${delivery.error ?? delivery.state}${retry}.`);
    }
    return delivery;
  }
  const webhooks = list.data?.webhooks ?? [];
  return (
    <>
      <h1>Alerts</h1>
      <p>Webhooks the panel tells when a tunnel is down, a certificate needs attention, a service stops, the disk fills or an agent is revoked.</p>
      <NewWebhook onDone={async (made) => { setSecret(made); await list.reload(); }} />
      {secret && <><Note kind="warn">The webhook's secret, shown only now: the receiver checks each alert's X-Relay-Signature with it.</Note><Copyable label="Webhook secret" text={secret} /></>}
      <section class="card" aria-labelledby="webhooks-title">
        <h2 id="webhooks-title">Webhooks</h2>
        <ErrorText message={list.error} />
        {!list.data ? <Loading /> : (
          <Table head={['URL', 'Events', 'Tunnel down after', 'State', 'Actions']}
            empty="No webhooks yet. Add one above: a URL that takes a JSON POST per alert (a chat or paging service's incoming webhook); then send it a test."
            rows={webhooks.map((w) => [w.url, w.events.map((e) => EVENTS[e]).join(', '), `${w.tunnelDownMinutes} min`, <Badge status={w.enabled ? 'enabled' : 'disabled'} />,
              <span class="actions">
                <Action label={`Send test alert to ${w.url}`} run={() => sendTest(w)} done={(d) => (d.state === 'delivered' ? `Test alert delivered to ${w.url}: HTTP ${d.statusCode}.` : undefined)}>Send test</Action>
                <Action label={`${w.enabled ? 'Disable' : 'Enable'} ${w.url}`} done={`Webhook ${w.url} ${w.enabled ? 'disabled' : 'enabled'}.`}
                  run={async () => { await api('PATCH', `/api/alerts/webhooks/${enc(w.id)}`, { enabled: !w.enabled }); await list.reload(); }}>{w.enabled ? 'Disable' : 'Enable'}</Action>
                <Action kind="danger" label={`Delete ${w.url}`} confirm={`Delete the webhook ${w.url}? Alerts waiting for it are dropped.`} done={`Webhook ${w.url} deleted.`}
                  run={async () => { await api('DELETE', `/api/alerts/webhooks/${enc(w.id)}`); await list.reload(); }}>Delete</Action>
              </span>])} />
        )}
      </section>
      <Deliveries webhooks={webhooks} log={log} />
      <ErrorText message={settings.error} />
      {settings.data && <PrivateTargets key={String(settings.data.allowPrivateTargets)} settings={settings.data} onSaved={(saved) => settings.update(() => saved)} />}
    </>
  );
}
