// Access across the box: the groups (from the portal users' `groups`, and the rules that name them)
// with their members and apps, renamed, given members or deleted everywhere at once; and what one
// user may open, and through what (GET /api/access/groups, /api/access/users/:username).
import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { Action, Submit } from '../components/action.tsx';
import { Field, Select } from '../components/field.tsx';
import { ErrorText, Loading, Unavailable } from '../components/notice.tsx';
import { Table } from '../components/table.tsx';
import { useForm } from '../form.ts';
import { useResource } from '../resource.ts';

const enc = encodeURIComponent;
const split = (text: string) => text.split(/[,\s]+/).map((v) => v.trim()).filter(Boolean);

function GroupEdit({ name, members, onDone }: { name: string; members: string[]; onDone(): Promise<void> }) {
  const form = useForm({ rename: name, members: members.join(', ') });
  return (
    <form class="card" aria-labelledby="group-edit" onSubmit={(e) => { e.preventDefault(); void form.submit(async () => {
      await api('PUT', `/api/access/groups/${enc(name)}/members`, { users: split(form.values.members) });
      if (form.values.rename && form.values.rename !== name) await api('PATCH', `/api/access/groups/${enc(name)}`, { name: form.values.rename });
      await onDone();
    }, `Group ${name} saved.`); }}>
      <h3 id="group-edit">Group {name}</h3>
      <ErrorText message={form.error} />
      <div class="grid">
        <Field label="Name" value={form.values.rename} onInput={(v) => form.set('rename', v)} error={form.fieldErrors.name} hint="A new name is written into every user and every rule" />
        <Field label="Members" value={form.values.members} onInput={(v) => form.set('members', v)} hint="Comma-separated usernames: exactly these users carry the group" />
      </div>
      <Submit busy={form.busy}>Save group</Submit>
    </form>
  );
}

function Reach() {
  const users = useResource('/api/users');
  const [user, setUser] = useState('');
  const reach = useResource(user ? `/api/access/users/${enc(user)}` : null);
  const names = users.data?.users.map((u) => u.username) ?? [];
  // the last user's answer stays in the resource until the chosen one's comes: not shown under the new name
  const apps = reach.data?.user === user ? reach.data.apps : undefined;
  return (
    <section class="card" aria-labelledby="reach">
      <h2 id="reach">Who can reach what</h2>
      <ErrorText message={users.error ?? reach.error} />
      {!users.data ? <Loading /> : <Select label="Portal user" value={user} options={[{ value: '', label: 'Choose a user' }, ...names]} onChange={setUser} />}
      {user && (apps ? (
        <Table caption={`Apps ${user} may open`} head={['App', 'Kind', 'Access', 'Because']} empty={`${user} may open no app.`}
          rows={apps.map((a) => [a.fqdn, a.kind, a.mode, a.via])} />
      ) : !reach.error && <Loading />)}
    </section>
  );
}

export function AccessPage() {
  const groups = useResource('/api/access/groups');
  const [editing, setEditing] = useState<string>();
  if (groups.unavailable) return <><h1>Access</h1><Unavailable feature="Access" /></>;
  const selected = groups.data?.groups.find((g) => g.name === editing);
  return (
    <>
      <h1>Access</h1>
      <p>Who may open each tunnel and site is set on the tunnel's page and in a site's settings; groups are kept here.</p>
      <section class="card" aria-labelledby="groups">
        <h2 id="groups">Groups</h2>
        <ErrorText message={groups.error} />
        {!groups.data ? <Loading /> : (
          <Table caption="Groups, their members and the apps that name them" head={['Group', 'Members', 'Named by', 'Actions']} empty="No groups yet: give users groups on the Users page."
            rows={groups.data.groups.map((g) => [g.name, g.members.join(', ') || '—', g.apps.map((a) => a.fqdn).join(', ') || '—',
              <span class="actions">
                <button type="button" class="btn" aria-label={`Edit group ${g.name}`} onClick={() => setEditing(g.name)}>Edit</button>
                <Action kind="danger" label={`Delete group ${g.name}`} confirm={`Delete the group ${g.name} from every user and every rule?`} done={`Group ${g.name} deleted.`}
                  run={async () => { await api('DELETE', `/api/access/groups/${enc(g.name)}`); setEditing(undefined); await groups.reload(); }}>Delete</Action>
              </span>])} />
        )}
      </section>
      {selected && <GroupEdit key={selected.name} name={selected.name} members={selected.members} onDone={async () => { setEditing(undefined); await groups.reload(); }} />}
      <Reach />
    </>
  );
}
