import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import { InvalidRecordError, JsonCollection, StoreLoadError } from './state/collection.ts';
import { describeZodIssues } from './state/zod-issues.ts';
import { MAX_IP_TEXT, SystemConfigSchema } from './system/config.ts';
import { DEFAULT_POLICY_ID, PushInstallConfigSchema } from './push-install-config.ts';
import { CertificateModeRecord, CertLimitsSetting } from './cert-settings.ts';

/** An npm scope (`@acme`): only packages published under an allowed one may be installed from the registry. */
export const NpmScope = z.string().max(214).regex(/^@[a-z0-9][a-z0-9._-]*$/, 'must be an npm scope like @acme');

/** `plugins.allowedScopes` in the configuration, and the body of PATCH /api/plugins/settings. */
export const AllowedScopes = z.array(NpmScope).max(100);

export const ONBOARDING_STATUSES = ['FRESH', 'DOMAIN_SET', 'DNS_READY', 'PROVISIONING', 'COMPLETED'] as const;
export type OnboardingStatus = (typeof ONBOARDING_STATUSES)[number];

const LOOPBACK_HOSTS = ['127.0.0.1', '::1', 'localhost'];

export const ConfigSchema = z
  .object({
    ip: z.string().min(1).max(MAX_IP_TEXT),
    domain: z.string().min(1).max(253).nullable(),
    email: z.email().max(254).nullable(),
    dataDir: z.string().min(1).max(4096),
    staticDir: z.string().min(1).max(4096).optional(),
    maxSiteSize: z.number().int().positive().default(524288000),
    onboarding: z.object({ status: z.enum(ONBOARDING_STATUSES) }).strict(),
    panel2fa: z
      .object({
        enabled: z.boolean().default(false),
        secret: z.string().max(1024).nullable().default(null),
        setupComplete: z.boolean().default(false),
      })
      .strict()
      .default({ enabled: false, secret: null, setupComplete: false }),
    sessionSecret: z.string().min(32).max(1024).optional(),
    /** Agent enrollment and admin certificate rotation. */
    certs: z
      .object({
        /** Lifetime of an enrollment token when the request names none; at most 24 h. */
        enrollmentTokenMinutes: z.number().int().min(1).max(1440).default(15),
        /** How long the replaced admin certificate keeps working after a rotation. */
        adminRotationGraceHours: z.number().min(0).max(24 * 30).default(24),
      })
      .strict()
      .default({ enrollmentTokenMinutes: 15, adminRotationGraceHours: 24 }),
    /** Plugins: where they are installed and which packages may be. */
    plugins: z
      .object({
        /** Installed plugins, one npm prefix each; `<dataDir>/plugins` unless set. */
        dir: z.string().min(1).max(4096).optional(),
        /** npm scopes whose registry packages may be installed (`@acme`). */
        allowedScopes: AllowedScopes.default([]),
        /** A folder whose `file:` tarballs may be installed. */
        localDir: z.string().min(1).max(4096).optional(),
        /** The npm executable; the one next to the running node unless set. */
        npm: z.string().min(1).max(4096).optional(),
        /** Pushing plugin installs to agents: off until an admin turns it on. */
        pushInstall: PushInstallConfigSchema.default({ enabled: false, defaultPolicy: DEFAULT_POLICY_ID }),
      })
      .strict()
      .default({ allowedScopes: [], pushInstall: { enabled: false, defaultPolicy: DEFAULT_POLICY_ID } }),
    /** The API listener; loopback only, because it trusts the proxy's X-SSL-Client-* headers. */
    listen: z
      .object({
        host: z.string().max(MAX_IP_TEXT).refine((h) => LOOPBACK_HOSTS.includes(h), 'must be a loopback address (127.0.0.1, ::1 or localhost)'),
        port: z.number().int().min(0).max(65535),
      })
      .strict()
      .default({ host: '127.0.0.1', port: 3100 }),
    /** Alert webhooks: loopback, private networks and inward names as targets only when an admin allows it. */
    alerts: z.object({ allowPrivateTargets: z.boolean().default(false) }).strict().default({ allowPrivateTargets: false }),
    /** The ACME limits counted before each order (lib/certs/limits/defaults.ts): each field given replaces the CA's published number, null turns it off. */
    certLimits: CertLimitsSetting.optional(),
    /** One certificate per name (HTTP-01), or one wildcard certificate through a DNS provider (DNS-01). */
    certificateMode: CertificateModeRecord.default({ mode: 'per-name' }),
    /** TCP and UDP tunnels: the public ports an admin may give them (both ends included). */
    streams: z
      .object({
        publicPorts: z
          .object({ from: z.number().int().min(1).max(65535), to: z.number().int().min(1).max(65535) })
          .strict()
          .refine((r) => r.from <= r.to, 'from must not be above to')
          .default({ from: 10000, to: 60000 }),
      })
      .strict()
      .default({ publicPorts: { from: 10000, to: 60000 } }),
    /** GET /metrics and the per-request counting behind it; off answers 404 and counts nothing. */
    metrics: z.object({ enabled: z.boolean().default(true) }).strict().default({ enabled: true }),
    // prefault: the defaults are parsed when a file leaves `system` out, not while the module loads (8 ms of start-up)
    system: SystemConfigSchema.prefault({}),
  })
  .strict();

export type Config = z.infer<typeof ConfigSchema>;
export type ConfigInput = z.input<typeof ConfigSchema>;
/** An update merges `onboarding` into the current value and replaces every other key it names. */
export type ConfigPatch = Partial<Omit<Config, 'onboarding'>> & { onboarding?: Partial<Config['onboarding']> };

// The whole configuration is checked at load; an update replaces top-level fields only, and the
// schema checks nothing across fields, so checking the replaced ones checks the whole (the
// `system` section alone is most of a whole check's millisecond). A check across fields added to
// the schema turns this back into the whole check.
const FIELDS_STAND_ALONE = (ConfigSchema.def.checks ?? []).length === 0;
const fieldSchemas = new Map<string, z.ZodType>();

function replacedFieldsCheck(keys: string[], file: string): ((next: Config) => Config) | undefined {
  const shape = ConfigSchema.shape as Record<string, z.ZodType>;
  if (!FIELDS_STAND_ALONE || keys.some((k) => !Object.hasOwn(shape, k))) return undefined;
  const name = keys.join(',');
  let schema = fieldSchemas.get(name);
  if (!schema) {
    schema = z.object(Object.fromEntries(keys.map((k) => [k, shape[k]]))).strict();
    fieldSchemas.set(name, schema);
  }
  const fields = schema;
  return (next) => {
    const parsed = fields.safeParse(Object.fromEntries(keys.map((k) => [k, (next as Record<string, unknown>)[k]])), { jitless: true });
    if (!parsed.success) throw new InvalidRecordError(file, describeZodIssues(parsed.error.issues));
    // the schema's key order, as a whole parse gives (the file people read keeps its order)
    const merged: Record<string, unknown> = { ...next, ...(parsed.data as object) };
    const ordered: Record<string, unknown> = {};
    for (const k of Object.keys(shape)) if (Object.hasOwn(merged, k)) ordered[k] = merged[k];
    return ordered as Config;
  };
}

/** The configuration file, validated on load and on every update, written atomically with mode 0600. */
export class ConfigStore {
  private constructor(private readonly document: JsonCollection<Config>) {}

  static async open(file: string): Promise<ConfigStore> {
    const document = await JsonCollection.open<Config>({
      file,
      schema: ConfigSchema as z.ZodType<Config>,
      initial: () => {
        throw new StoreLoadError(file, 'no such file');
      },
      mode: 0o600,
      pretty: true,
    });
    return ConfigStore.#withSessionSecret(document);
  }

  /** A configuration kept in memory only (lib/testing.ts): validated like a file, never written. */
  static async inMemory(input: ConfigInput): Promise<ConfigStore> {
    const document = await JsonCollection.open<Config>({
      file: '(in memory)',
      schema: ConfigSchema as z.ZodType<Config>,
      initial: () => ConfigSchema.parse(input),
      persistence: 'memory',
    });
    return ConfigStore.#withSessionSecret(document);
  }

  static async #withSessionSecret(document: JsonCollection<Config>): Promise<ConfigStore> {
    const store = new ConfigStore(document);
    if (!document.value.sessionSecret) await store.update({ sessionSecret: randomBytes(32).toString('hex') });
    return store;
  }

  /** Writes a new configuration file; refuses to replace an existing one. */
  static async create(file: string, input: ConfigInput): Promise<ConfigStore> {
    const config = ConfigSchema.parse(input);
    await mkdir(dirname(file), { recursive: true, mode: 0o700 });
    await writeFile(file, JSON.stringify(config, null, 2), { mode: 0o600, flag: 'wx' });
    return ConfigStore.open(file);
  }

  get file(): string {
    return this.document.file;
  }

  get value(): Config {
    return this.document.value;
  }

  get version(): number {
    return this.document.version;
  }

  async update(patch: ConfigPatch): Promise<Config> {
    await this.document.update((draft) => {
      const { onboarding, ...rest } = patch;
      Object.assign(draft, rest);
      if (onboarding) draft.onboarding = { ...draft.onboarding, ...onboarding };
    }, replacedFieldsCheck(Object.keys(patch), this.document.file));
    return this.document.value;
  }

  flush(): Promise<void> {
    return this.document.flush();
  }
}

/**
 * The `PORT` override of the listening port: 0 to 65535 (0: any free port, as `listen.port`
 * allows), checked before anything starts so that a bad one is one clear line, not an error from
 * inside `listen`.
 */
export function portOverride(text: string | undefined): number | undefined {
  if (text === undefined || text === '') return undefined;
  const port = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(port >= 0 && port <= 65535)) throw new Error(`PORT must be a port number from 0 to 65535, not '${text}'`);
  return port;
}
