import { readCompanySettings } from '../../db/queries/company-settings.js';
import { saveCompanySettings } from '../../db/writes/company-settings.js';
import type { AppContext } from '../app.js';
import { ok } from '../http/respond.js';
import type { Surface } from '../http/route.js';
import { settingsErrorCode } from './booking-settings.openapi.js';
import { authorize, MANAGEMENT_ROLES, requireActiveCompany, requireRole } from './guards.js';
import { docs, settingsData, SettingsPatch } from './settings.openapi.js';

/** GET and PATCH /settings: the company's profile and operating settings. */
export function registerCompanySettingsRoutes(surface: Surface, { db, config }: AppContext): void {
  const platformCutoff = config.BOOKING_CANCEL_CUTOFF_MINUTES;

  surface.route({
    ...docs.getCompanySettings,
    method: 'get',
    path: '/settings',
    security: 'companyStaff',
    handler: async (ctx) => {
      const staff = authorize(ctx);
      ok(ctx, settingsData(await readCompanySettings(db, staff.companyId), platformCutoff));
    },
  });

  surface.route({
    ...docs.updateCompanySettings,
    method: 'patch',
    path: '/settings',
    security: 'companyStaff',
    body: SettingsPatch,
    errorCode: settingsErrorCode,
    handler: async (ctx, { body }) => {
      const staff = authorize(ctx, requireRole(...MANAGEMENT_ROLES), requireActiveCompany);
      const saved = await saveCompanySettings(
        db,
        { companyId: staff.companyId, change: body, staffUserId: staff.staffUserId },
        { ip: ctx.ip, requestId: ctx.state.requestId },
      );
      ok(ctx, settingsData(saved, platformCutoff));
    },
  });
}
