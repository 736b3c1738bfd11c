// Webhooks (stored, mode 0600: they hold secrets) and the alerts sent to them. `emit` fans an event
// out to every enabled webhook that asked for it and returns at once: sending is the dispatcher's.
// A webhook's URL must point outward unless the admin allows private targets (`alerts` in the
// configuration); the dispatcher checks again at each delivery, where the name's addresses count.
import { randomUUID } from 'node:crypto';
import { isoNow, type Clock } from '../clock.ts';
import type { ConfigStore } from '../config.ts';
import { AppError, validationFailed } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { AlertEventName, WebhookRecord } from '../state/schemas.ts';
import type { Store } from '../state/store.ts';
import { AlertDispatcher, type DeliveryView } from './dispatcher.ts';
import {
  MAX_WEBHOOKS, TOO_MANY_WEBHOOKS, WEBHOOK_NOT_FOUND,
  type AlertSettings, type AlertSettingsUpdate, type PublicWebhook, type WebhookCreate, type WebhookUpdate,
} from './schema.ts';
import { newWebhookSecret } from './signature.ts';
import { refusedUrl, type TargetPolicy } from './target.ts';

export interface AlertDeps {
  store: Store;
  config: ConfigStore;
  clock: Clock;
  log: Logger;
}

const toPublic = ({ secret: _, ...webhook }: WebhookRecord): PublicWebhook => webhook;

export class AlertService {
  readonly #deps: AlertDeps;
  readonly dispatcher: AlertDispatcher;

  constructor(deps: AlertDeps) {
    this.#deps = deps;
    const target = (id: string) => deps.store.webhooks.get(id);
    this.dispatcher = new AlertDispatcher(target, deps.clock, deps.log, { policy: () => this.#policy() });
  }

  settings(): AlertSettings {
    return { allowPrivateTargets: this.#deps.config.value.alerts.allowPrivateTargets };
  }

  /** Applies to the next delivery attempt; webhooks saved while private targets were allowed stay, and are refused at delivery. */
  async updateSettings(update: AlertSettingsUpdate): Promise<AlertSettings> {
    await this.#deps.config.update({ alerts: { ...this.#deps.config.value.alerts, ...update } });
    this.#deps.log.info(`Alert webhooks: private targets ${update.allowPrivateTargets ? 'allowed' : 'refused'}`);
    return this.settings();
  }

  list(): PublicWebhook[] {
    return this.#deps.store.webhooks.value.map(toPublic);
  }

  /** The webhooks `event` goes to. */
  subscribers(event: AlertEventName): WebhookRecord[] {
    return this.#deps.store.webhooks.value.filter((w) => w.enabled && w.events.includes(event));
  }

  /** Queues `event` for each webhook that asked for it (and passes `only`); never waits for a receiver. */
  emit(event: AlertEventName, data: Record<string, unknown>, only: (webhook: WebhookRecord) => boolean = () => true): void {
    for (const webhook of this.subscribers(event)) if (only(webhook)) this.dispatcher.enqueue(webhook.id, event, data, this.#deps.config.value.domain);
  }

  async create(input: WebhookCreate): Promise<{ webhook: PublicWebhook; secret: string }> {
    this.#checkUrl(input.url);
    const record: WebhookRecord = {
      id: randomUUID(),
      url: input.url,
      secret: input.secret ?? newWebhookSecret(),
      events: [...new Set(input.events)],
      tunnelDownMinutes: input.tunnelDownMinutes,
      enabled: input.enabled,
      createdAt: isoNow(this.#deps.clock),
    };
    await this.#deps.store.webhooks.edit((draft) => {
      if (draft.size >= MAX_WEBHOOKS) throw new AppError(409, TOO_MANY_WEBHOOKS);
      draft.put(record);
    });
    this.#deps.log.info(`Webhook ${record.id} created for ${new URL(record.url).origin}`);
    return { webhook: toPublic(record), secret: record.secret };
  }

  async update(id: string, { events, ...rest }: WebhookUpdate): Promise<PublicWebhook> {
    if (rest.url !== undefined) this.#checkUrl(rest.url);
    const updated = await this.#deps.store.webhooks.edit((draft) => {
      const record = draft.get(id);
      if (!record) throw new AppError(404, WEBHOOK_NOT_FOUND);
      const given = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined));
      const next: WebhookRecord = { ...record, ...given, ...(events ? { events: [...new Set(events)] } : {}) };
      draft.put(next);
      return next;
    });
    this.#deps.log.info(`Webhook ${id} updated`);
    return toPublic(updated);
  }

  async delete(id: string): Promise<void> {
    await this.#deps.store.webhooks.edit((draft) => {
      if (!draft.delete(id)) throw new AppError(404, WEBHOOK_NOT_FOUND);
    });
    this.dispatcher.forget(id);
    this.#deps.log.info(`Webhook ${id} deleted`);
  }

  /**
   * A `test` alert to one webhook, whatever its events and even when disabled: answered once its
   * first attempt has ended, so the admin sees at once whether the receiver took it (a failed test
   * is retried like any alert, but nobody waits for that).
   */
  test(id: string): Promise<DeliveryView> {
    if (!this.#deps.store.webhooks.get(id)) throw new AppError(404, WEBHOOK_NOT_FOUND);
    return this.dispatcher.enqueueAndAttempt(id, 'test', { message: 'A test alert from relay-panel' }, this.#deps.config.value.domain);
  }

  deliveries(): DeliveryView[] {
    return this.dispatcher.deliveries();
  }

  close(): Promise<void> {
    return this.dispatcher.close();
  }

  #policy(): TargetPolicy {
    const { alerts, domain } = this.#deps.config.value;
    return { allowPrivate: alerts.allowPrivateTargets, relayDomain: domain };
  }

  /** The spec's 400 `Validation failed`, the reason as the `url` issue like the schema's other URL rules. */
  #checkUrl(url: string): void {
    const refused = refusedUrl(url, this.#policy());
    if (refused) throw validationFailed([{ path: 'url', message: refused }]);
  }
}
