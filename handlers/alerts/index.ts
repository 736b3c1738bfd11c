import type { AnyRoute } from '../../lib/http/route.ts';
import alertWebhooksList from './webhooks/list.ts';
import alertWebhooksCreate from './webhooks/create.ts';
import alertWebhooksUpdate from './webhooks/update.ts';
import alertWebhooksDelete from './webhooks/delete.ts';
import alertWebhooksTest from './webhooks/test.ts';
import alertDeliveries from './deliveries/list.ts';
import alertSettingsShow from './settings/show.ts';
import alertSettingsUpdate from './settings/update.ts';

/** The routes under /api/alerts, each in the file its URL names (the registry test checks it). */
export const routes = [alertWebhooksList, alertWebhooksCreate, alertWebhooksUpdate, alertWebhooksDelete, alertWebhooksTest, alertDeliveries, alertSettingsShow, alertSettingsUpdate] as const satisfies readonly AnyRoute[];
