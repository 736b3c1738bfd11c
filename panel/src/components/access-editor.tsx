// Who may reach one tunnel or site: the mode (every signed-in user, chosen users and groups, or for
// a tunnel the public with no portal at all, confirmed against its warning), and the rules checked
// first (a path, network or method let through, refused or asked a factor). GET/PUT
// /api/tunnels/:id/access and /api/sites/:id/access; what is shown after a save is the server's.
import { useState } from 'preact/hooks';
import { api, type GetAnswer } from '../api.ts';
import { useForm } from '../form.ts';
import { useResource } from '../resource.ts';
import { Submit } from './action.tsx';
import { confirmAction } from './dialogs.tsx';
import { Field, Select } from './field.tsx';
import { ErrorText, Loading, Note } from './notice.tsx';

type Answer = GetAnswer<'/api/tunnels/:id/access'>;
type Access = Answer['access'];
type Rule = Access['rules'][number];
type Mode = Access['mode'];
type Policy = Rule['policy'];
type Method = NonNullable<Rule['methods']>[number];

const POLICIES: readonly { value: Policy; label: string }[] = [
  { value: 'bypass', label: 'let through without signing in' },
  { value: 'deny', label: 'refuse' },
  { value: 'one_factor', label: 'password only' },
  { value: 'two_factor', label: 'password and code' },
];
const PUBLIC_WARNING = 'Make this tunnel PUBLIC? Anyone on the internet will reach it with no sign-in: its app must do its own authentication.';

interface RuleText { resources: string; networks: string; methods: string; policy: Policy }
const list = (text: string, by: RegExp) => text.split(by).map((v) => v.trim()).filter(Boolean);
const ruleText = (r: Rule): RuleText => ({ resources: (r.resources ?? []).join(' '), networks: (r.networks ?? []).join(', '), methods: (r.methods ?? []).join(', '), policy: r.policy });
function ruleOf(t: RuleText): Rule {
  const resources = list(t.resources, /\s+/);
  const networks = list(t.networks, /[,\s]+/);
  const methods = list(t.methods.toUpperCase(), /[,\s]+/) as Method[];
  return { policy: t.policy, ...(resources.length ? { resources } : {}), ...(networks.length ? { networks } : {}), ...(methods.length ? { methods } : {}) };
}

/** One sentence of what is stored now: the server's word, so a refused save is not mistaken for one. */
export function describeAccess(access: Access): string {
  const who = access.mode === 'public' ? 'PUBLIC: anyone, no sign-in'
    : access.mode === 'restricted' ? `only ${[...access.users, ...access.groups.map((g) => `group ${g}`)].join(', ') || 'the admins'} (and the admins)`
    : 'every signed-in portal user';
  return `${who}; ${access.rules.length ? `${access.rules.length} rule(s) first` : 'no path or network rules'}`;
}

function Editor({ app, access, allowPublic, save }: { app: Answer['app']; access: Access; allowPublic: boolean; save(next: Access): Promise<Answer> }) {
  const form = useForm({ mode: access.mode, users: access.users.join(', '), groups: access.groups.join(', ') });
  const [rules, setRules] = useState<RuleText[]>(access.rules.map(ruleText));
  const [stored, setStored] = useState<Answer>();
  const shown = stored?.access ?? access;
  const modes: readonly { value: Mode; label: string }[] = [
    { value: 'authenticated', label: 'Every signed-in portal user (default)' },
    { value: 'restricted', label: 'Only chosen users and groups' },
    ...(allowPublic || access.mode === 'public' ? [{ value: 'public' as const, label: 'Public: no portal at all' }] : []),
  ];
  const setRule = (i: number, patch: Partial<RuleText>) => setRules((all) => all.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <form aria-label={`Access to ${app.name}`} onSubmit={(e) => { e.preventDefault(); void form.submit(async () => {
      const restricted = form.values.mode === 'restricted';
      const next: Access = { mode: form.values.mode, users: restricted ? list(form.values.users, /[,\s]+/) : [], groups: restricted ? list(form.values.groups, /[,\s]+/) : [], rules: rules.map(ruleOf) };
      // asked against what is stored now, not what the page loaded: a tunnel saved restricted since is asked again
      if (next.mode === 'public' && shown.mode !== 'public' && !(await confirmAction(PUBLIC_WARNING))) return undefined;
      const answer = await save(next);
      setStored(answer);
      return answer;
    }, (answer) => (answer ? `Access to ${app.fqdn} saved.` : undefined)); }}>
      <ErrorText message={form.error} />
      <p data-testid="stored-access">Stored now: {describeAccess(shown)}</p>
      {shown.mode === 'public' && <Note kind="warn">{stored?.warning ?? 'This tunnel is PUBLIC: anyone on the internet reaches it, with no sign-in.'}</Note>}
      <Select label="Who may open it" value={form.values.mode} options={modes} onChange={(v) => form.set('mode', v)} />
      {form.values.mode === 'public' && <Note kind="warn">Public: the portal is not asked at all. Only for apps that authenticate on their own (a webhook receiver, a status page).</Note>}
      {form.values.mode === 'restricted' && (
        <div class="grid">
          <Field label="Users" value={form.values.users} onInput={(v) => form.set('users', v)} hint="Comma-separated portal usernames; the admins always may" />
          <Field label="Groups" value={form.values.groups} onInput={(v) => form.set('groups', v)} hint="Comma-separated groups (the Access page lists them)" />
        </div>
      )}
      <fieldset>
        <legend>Rules checked first, in this order</legend>
        {rules.length === 0 && <p>No rules: the choice above applies to every path.</p>}
        {rules.map((r, i) => (
          <div class="grid" key={i} role="group" aria-label={`Rule ${i + 1}`}>
            <Select label={`Rule ${i + 1}: what happens`} value={r.policy} options={POLICIES} onChange={(policy) => setRule(i, { policy })} />
            <Field label="Paths (regular expressions, space-separated)" value={r.resources} onInput={(resources) => setRule(i, { resources })} hint="e.g. ^/webhook$ (the portal's RE2: no lookaround or backreferences)" />
            <Field label="Networks" value={r.networks} onInput={(networks) => setRule(i, { networks })} hint="Addresses or CIDR ranges, comma-separated" />
            <Field label="Methods" value={r.methods} onInput={(methods) => setRule(i, { methods })} hint="e.g. POST, GET" />
            <button type="button" class="btn" aria-label={`Remove rule ${i + 1}`} onClick={() => setRules((all) => all.filter((_, j) => j !== i))}>Remove rule</button>
          </div>
        ))}
        <button type="button" class="btn" onClick={() => setRules((all) => [...all, { resources: '', networks: '', methods: '', policy: 'bypass' }])}>Add a rule</button>
      </fieldset>
      <div class="row"><Submit busy={form.busy}>Save access</Submit></div>
    </form>
  );
}

export function TunnelAccess({ id }: { id: string }) {
  const res = useResource(`/api/tunnels/${encodeURIComponent(id)}/access`);
  if (!res.data) return <><ErrorText message={res.error} />{!res.error && <Loading />}</>;
  return <Editor key={JSON.stringify(res.data.access)} app={res.data.app} access={res.data.access} allowPublic
    save={(next) => api('PUT', `/api/tunnels/${encodeURIComponent(id)}/access`, next)} />;
}

/** `onSaved`: the site's record changed with its access (its allowed users), for the settings shown beside it. */
export function SiteAccess({ id, onSaved }: { id: string; onSaved?(): Promise<void> }) {
  const res = useResource(`/api/sites/${encodeURIComponent(id)}/access`);
  if (!res.data) return <><ErrorText message={res.error} />{!res.error && <Loading />}</>;
  return (
    <>
      {!res.data.protected && <Note kind="warn">Portal protection is off for this site: its access applies once protection is on.</Note>}
      <Editor key={JSON.stringify(res.data.access)} app={res.data.app} access={res.data.access} allowPublic={false}
        save={async (next) => {
          const answer = await api('PUT', `/api/sites/${encodeURIComponent(id)}/access`, next);
          await onSaved?.();
          return answer;
        }} />
    </>
  );
}
