// Public page: an invitee sets a password. Reached without a client certificate.
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, describe, type GetAnswer, type UrlAnswer } from '../api.ts';
import { Submit } from '../components/action.tsx';
import { Field } from '../components/field.tsx';
import { ErrorText, Loading, Note } from '../components/notice.tsx';
import { Copyable, QrCode } from '../components/secret.tsx';
import { useForm } from '../form.ts';
import { when } from '../format.ts';

type Invitation = GetAnswer<'/api/invite/:token'>;
/** `totpUri` is null when the one-time code enrollment failed: an admin can reset it later. */
type Accepted = UrlAnswer<'POST', '/api/invite/:token/accept'>;

/**
 * The server's own words for an unknown (404), used or expired (410) link; a link that is not a
 * token at all is 400 `Validation failed`, which means nothing to an invitee.
 */
function refusal(error: unknown): string {
  return error instanceof ApiError && error.status === 400 ? 'This invitation link is not valid' : describe(error);
}

export function InvitePage({ token }: { token: string }) {
  const [invitation, setInvitation] = useState<Invitation>();
  const [error, setError] = useState<string>();
  const [accepted, setAccepted] = useState<Accepted>();
  const form = useForm({ password: '', confirm: '' });
  const [mismatch, setMismatch] = useState(false);
  const path = `/api/invite/${encodeURIComponent(token)}` as const;
  useEffect(() => { api('GET', path).then(setInvitation, (e) => setError(refusal(e))); }, [path]);
  if (error) return <><h1>Invitation</h1><ErrorText message={error} /></>;
  if (!invitation) return <><h1>Invitation</h1><Loading /></>;
  if (accepted) {
    return (
      <>
        <h1>Welcome, {invitation.username}</h1>
        <Note kind="ok">Your account {accepted.username} is ready. Sign in at the portal.</Note>
        <p><a href={accepted.loginUrl}>{accepted.loginUrl}</a></p>
        {accepted.totpUri
          ? <><p>Scan this with your authenticator app now; it is shown only once.</p><QrCode text={accepted.totpUri} label="TOTP QR code" /><Copyable label="TOTP URI" text={accepted.totpUri} /></>
          : <Note kind="warn">Your one-time code could not be set up. Ask an admin to reset your TOTP.</Note>}
      </>
    );
  }
  return (
    <>
      <h1>Accept your invitation</h1>
      <p>Account <strong>{invitation.username}</strong> ({invitation.email}); this invitation expires {when(invitation.expiresAt)}.</p>
      <form class="card" onSubmit={(e) => { e.preventDefault();
        setMismatch(form.values.password !== form.values.confirm);
        if (form.values.password !== form.values.confirm) return;
        void form.submit(async () => {
        setAccepted(await api('POST', `${path}/accept`, { password: form.values.password }));
      }); }}>
        <ErrorText message={form.error} />
        <Field label="Password" type="password" value={form.values.password} onInput={(v) => form.set('password', v)} error={form.fieldErrors.password} autoComplete="new-password" hint="8 to 128 characters" required />
        <Field label="Repeat the password" type="password" value={form.values.confirm} onInput={(v) => form.set('confirm', v)} autoComplete="new-password" error={mismatch ? 'The two passwords differ' : undefined} required />
        <Submit busy={form.busy}>Create my account</Submit>
      </form>
    </>
  );
}
