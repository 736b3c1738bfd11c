import { useState } from 'preact/hooks';
import { api, type GetAnswer } from '../api.ts';
import { Action, Submit } from '../components/action.tsx';
import { Field } from '../components/field.tsx';
import { ListControls, Pager, useListView } from '../components/list-controls.tsx';
import { ErrorText, Loading, Note, Unavailable } from '../components/notice.tsx';
import { Copyable, QrCode } from '../components/secret.tsx';
import { Badge, Table } from '../components/table.tsx';
import { useForm } from '../form.ts';
import { commaList, when } from '../format.ts';
import type { ListSpec } from '../list-view.ts';
import { useResource } from '../resource.ts';

type User = GetAnswer<'/api/users'>['users'][number];

const enc = encodeURIComponent;
const USER_SPEC: ListSpec<User> = {
  key: (u) => u.username,
  text: (u) => [u.username, u.displayname, u.email, ...u.groups],
  states: { admins: (u) => u.groups.includes('admins'), others: (u) => !u.groups.includes('admins') },
  sorts: { username: (u) => u.username, name: (u) => u.displayname, email: (u) => u.email },
};
const USER_STATES = [{ value: 'admins', label: 'in admins' }, { value: 'others', label: 'not in admins' }];

function CreateUser({ onDone }: { onDone(): Promise<void> }) {
  const form = useForm({ username: '', displayname: '', email: '', password: '', groups: '' });
  return (
    <form class="card" aria-labelledby="new-user" onSubmit={(e) => { e.preventDefault(); void form.submit(async () => {
      const username = form.values.username.trim();
      await api('POST', '/api/users', { ...form.values, username, groups: commaList(form.values.groups) });
      form.reset();
      await onDone();
      return username;
    }, (username) => `User ${username} created.`); }}>
      <h2 id="new-user">New user</h2>
      <ErrorText message={form.error} />
      <div class="grid">
        <Field label="Username" value={form.values.username} onInput={(v) => form.set('username', v)} error={form.fieldErrors.username} autoComplete="off" required />
        <Field label="Display name" value={form.values.displayname} onInput={(v) => form.set('displayname', v)} error={form.fieldErrors.displayname} required />
        <Field label="Email" type="email" value={form.values.email} onInput={(v) => form.set('email', v)} error={form.fieldErrors.email} required />
        <Field label="Password" type="password" value={form.values.password} onInput={(v) => form.set('password', v)} error={form.fieldErrors.password} autoComplete="new-password" hint="8 to 128 characters" required />
        <Field label="Groups" value={form.values.groups} onInput={(v) => form.set('groups', v)} error={form.fieldErrors.groups} hint="Comma-separated, e.g. admins" />
      </div>
      <Submit busy={form.busy}>Create user</Submit>
    </form>
  );
}

function EditUser({ user, onDone }: { user: User; onDone(): Promise<void> }) {
  const form = useForm({ displayname: user.displayname, email: user.email, password: '', groups: user.groups.join(', ') });
  return (
    <form class="card" aria-labelledby="edit-user" onSubmit={(e) => { e.preventDefault(); void form.submit(async () => {
      const { password, ...rest } = form.values;
      await api('PUT', `/api/users/${enc(user.username)}`, { ...rest, groups: commaList(rest.groups), ...(password ? { password } : {}) });
      await onDone();
    }, `User ${user.username} updated.`); }}>
      <h2 id="edit-user">Edit {user.username}</h2>
      <ErrorText message={form.error} />
      <div class="grid">
        <Field label="Display name" value={form.values.displayname} onInput={(v) => form.set('displayname', v)} error={form.fieldErrors.displayname} required />
        <Field label="Email" type="email" value={form.values.email} onInput={(v) => form.set('email', v)} error={form.fieldErrors.email} required />
        <Field label="New password" type="password" value={form.values.password} onInput={(v) => form.set('password', v)} error={form.fieldErrors.password} autoComplete="new-password" hint="Leave empty to keep the current one" />
        <Field label="Groups" value={form.values.groups} onInput={(v) => form.set('groups', v)} error={form.fieldErrors.groups} hint="Comma-separated" />
      </div>
      <div class="row"><Submit busy={form.busy}>Save</Submit><button type="button" class="btn" onClick={() => void onDone()}>Cancel</button></div>
    </form>
  );
}

function Invitations() {
  const list = useResource('/api/invitations');
  const form = useForm({ username: '', email: '', displayname: '', groups: '' });
  const [link, setLink] = useState<string>();
  if (list.unavailable) return <section class="card"><h2>Invitations</h2><Unavailable feature="Invitations" /></section>;
  return (
    <section class="card" aria-labelledby="invitations-title">
      <h2 id="invitations-title">Invitations</h2>
      <form onSubmit={(e) => { e.preventDefault(); void form.submit(async () => {
        const made = await api('POST', '/api/invitations', {
          username: form.values.username.trim(), email: form.values.email.trim(), groups: commaList(form.values.groups),
          ...(form.values.displayname.trim() ? { displayname: form.values.displayname.trim() } : {}),
        });
        setLink(made.inviteUrl);
        form.reset();
        await list.reload();
        return made.invitation.username;
      }, (username) => `Invitation for ${username} created: send the link below.`); }}>
        <ErrorText message={form.error} />
        <div class="grid">
          <Field label="Invitee username" value={form.values.username} onInput={(v) => form.set('username', v)} error={form.fieldErrors.username} required />
          <Field label="Invitee email" type="email" value={form.values.email} onInput={(v) => form.set('email', v)} error={form.fieldErrors.email} required />
          <Field label="Invitee display name" value={form.values.displayname} onInput={(v) => form.set('displayname', v)} error={form.fieldErrors.displayname} hint="Optional; the username when empty" />
          <Field label="Invitee groups" value={form.values.groups} onInput={(v) => form.set('groups', v)} error={form.fieldErrors.groups} hint="Comma-separated" />
        </div>
        <Submit busy={form.busy}>Create invitation</Submit>
      </form>
      {link && <><Note kind="warn">Send this link to the invitee; it is shown only now.</Note><Copyable label="Invitation link" text={link} /></>}
      <ErrorText message={list.error} />
      {!list.data ? <Loading /> : (
        <Table head={['Username', 'Email', 'Expires', 'Status', 'Actions']} empty="No invitations. Invite someone above: they choose their own password from the link."
          rows={list.data.invitations.map((i) => [i.username, i.email, when(i.expiresAt), <Badge status={i.status} />,
            <Action kind="danger" label={`Revoke invitation of ${i.username}`} confirm={`Revoke the invitation of ${i.username}?`} done={`Invitation of ${i.username} revoked.`}
              run={async () => { await api('DELETE', `/api/invitations/${enc(i.id)}`); await list.reload(); }}>Revoke</Action>])} />
      )}
    </section>
  );
}

export function UsersPage() {
  const list = useResource('/api/users');
  const [editing, setEditing] = useState<User>();
  const [totp, setTotp] = useState<{ username: string; uri: string }>();
  const view = useListView(list.data?.users, USER_SPEC);
  if (list.unavailable) return <><h1>Users</h1><Unavailable feature="Users" /></>;
  const users = list.data?.users ?? [];
  const last = users.length <= 1;
  return (
    <>
      <h1>Users</h1>
      <p>Accounts of the authentication portal that protects tunneled apps and sites.</p>
      {editing ? <EditUser key={editing.username} user={editing} onDone={async () => { setEditing(undefined); await list.reload(); }} /> : <CreateUser onDone={list.reload} />}
      {totp && (
        <section class="card" aria-labelledby="totp-title">
          <h2 id="totp-title">New TOTP for {totp.username}</h2>
          <Note kind="warn">The previous code generator no longer works. Scan this now; it is not shown again.</Note>
          <QrCode text={totp.uri} label={`TOTP QR code for ${totp.username}`} />
          <Copyable label="TOTP URI" text={totp.uri} />
          <button type="button" class="btn" onClick={() => setTotp(undefined)}>Done</button>
        </section>
      )}
      <section class="card" aria-labelledby="user-list">
        <h2 id="user-list">Users</h2>
        <ErrorText message={list.error} />
        {users.length === 1 && <p class="muted">The last user cannot be deleted.</p>}
        {!list.data ? <Loading /> : (<>
          {view.total > 0 && <ListControls view={view} noun="users" states={USER_STATES} />}
          <Table head={[view.sortHead('Username', 'username'), view.sortHead('Name', 'name'), view.sortHead('Email', 'email'), 'Groups', 'Actions']}
            empty={view.total ? 'No user matches the search and state.' : 'No users yet. Create one above, or invite someone below: users sign in to the portal that protects tunnels and sites.'} keys={view.keys} rows={view.rows.map((u) => [u.username, u.displayname, u.email, u.groups.join(', ') || '—',
              <span class="actions">
                <button type="button" class="btn" aria-label={`Edit ${u.username}`} onClick={() => setEditing(u)}>Edit</button>
                <Action label={`Reset TOTP of ${u.username}`} confirm={`Reset the TOTP of ${u.username}? Their current authenticator stops working.`} done={`TOTP of ${u.username} reset: scan the new code.`}
                  run={async () => { const r = await api('POST', `/api/users/${enc(u.username)}/reset-totp`); setTotp({ username: u.username, uri: r.totpUri }); }}>Reset TOTP</Action>
                {!last && <Action kind="danger" label={`Delete ${u.username}`} confirm={`Delete the user ${u.username}?`} done={`User ${u.username} deleted.`}
                  run={async () => { await api('DELETE', `/api/users/${enc(u.username)}`); await list.reload(); }}>Delete</Action>}
              </span>])} />
          <Pager view={view} noun="users" />
        </>)}
      </section>
      <Invitations />
    </>
  );
}
