// The plugin scopes an admin allows (GET/PATCH /api/plugins/settings): what a scope means, the list
// with Remove, a field to add one, and the offer to allow the scope an install was refused for.
import { api, type GetAnswer } from '../api.ts';
import { Action, Submit } from '../components/action.tsx';
import { Field } from '../components/field.tsx';
import { ErrorText, Loading } from '../components/notice.tsx';
import { useForm } from '../form.ts';
import type { Resource } from '../resource.ts';

/** The server's PluginSettings (lib/plugins/scopes.ts). */
export type PluginSettings = GetAnswer<'/api/plugins/settings'>;

const TRUST = 'Installing a plugin runs its code in the panel\'s process, with the panel\'s rights: allow only scopes you trust.';

async function save(settings: Resource<PluginSettings>, allowedScopes: string[]): Promise<void> {
  const answer = await api('PATCH', '/api/plugins/settings', { allowedScopes });
  settings.update(() => answer.settings);
}

/** The scope an install was refused for (lib/plugins/spec.ts), if that was the refusal. */
export function refusedScope(error: string | undefined): string | undefined {
  return error && /^Scope (@[a-z0-9][a-z0-9._-]*) is not in plugins\.allowedScopes/.exec(error)?.[1];
}

/** Beside a refused install: allow its scope (asked first), then install again. */
export function AllowScopeOffer({ scope, settings }: { scope: string | undefined; settings: Resource<PluginSettings> }) {
  if (!scope || !settings.data || settings.data.allowedScopes.includes(scope)) return null;
  const current = settings.data.allowedScopes;
  return (
    <p class="row">
      <Action kind="primary" confirm={`Allow packages published under ${scope} to be installed? ${TRUST}`}
        run={() => save(settings, [...current, scope])}>Allow {scope}</Action>
      <span class="muted">then press Install again.</span>
    </p>
  );
}

export function PluginScopesCard({ settings }: { settings: Resource<PluginSettings> }) {
  const form = useForm({ scope: '' });
  const scopes = settings.data?.allowedScopes;
  return (
    <section class="card" id="plugin-scopes" aria-labelledby="scopes-title">
      <h2 id="scopes-title">Allowed scopes</h2>
      <p>
        A scope is the <code>@name</code> an npm package is published under, like <code>@acme</code> in <code>@acme/backup</code>.
        Only packages under an allowed scope can be installed from the registry; a <code>file:</code> tarball is checked by its folder instead. {TRUST}
      </p>
      <ErrorText message={settings.error} />
      {!scopes ? (!settings.error && <Loading />) : (
        scopes.length === 0 ? <p class="muted">No scope is allowed: nothing can be installed from the registry.</p> : (
          <ul class="scopes">
            {scopes.map((scope) => (
              <li key={scope}>
                <code>{scope}</code>{' '}
                <Action kind="danger" label={`Remove ${scope}`} confirm={`Stop allowing installs from ${scope}? Plugins installed from it stay.`}
                  run={() => save(settings, scopes.filter((s) => s !== scope))}>Remove</Action>
              </li>
            ))}
          </ul>
        )
      )}
      {scopes && (
        <form onSubmit={(e) => { e.preventDefault(); void form.submit(async () => {
          await save(settings, [...scopes, form.values.scope.trim()]);
          form.reset();
        }); }}>
          <ErrorText message={form.error} />
          <Field label="Scope to allow" value={form.values.scope} onInput={(v) => form.set('scope', v)} hint="An npm scope, like @acme" required />
          <Submit busy={form.busy}>Allow scope</Submit>
        </form>
      )}
    </section>
  );
}
