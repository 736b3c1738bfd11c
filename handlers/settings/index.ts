import type { AnyRoute } from '../../lib/http/route.ts';
import settings2faStatus from './2fa/show.ts';
import settings2faSetup from './2fa/setup.ts';
import settings2faCancel from './2fa/cancel.ts';
import settings2faConfirm from './2fa/confirm.ts';
import settings2faVerify from './2fa/verify.ts';
import settings2faDisable from './2fa/disable.ts';
import settingsCertificatesShow from './certificates/show.ts';
import settingsCertificatesUpdate from './certificates/update.ts';

/** The routes under /api/settings, each in the file its URL names (the registry test checks it). */
export const routes = [settings2faStatus, settings2faSetup, settings2faCancel, settings2faConfirm, settings2faVerify, settings2faDisable, settingsCertificatesShow, settingsCertificatesUpdate] as const satisfies readonly AnyRoute[];
