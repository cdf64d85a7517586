import { readCompanySettings } from '../../db/queries/company-settings.js';
import { saveCompanySettings } from '../../db/writes/company-settings.js';
import type { AppContext } from '../app.js';
import { ok } from '../http/respond.js';
import type { Surface } from '../http/route.js';
import { settingsErrorCode } from './booking-settings.openapi.js';
import { actingMember, authorize, MANAGEMENT_ROLES, managerWrite } from './guards.js';
import { staffRoute } from './staff-route.js';
import { docs, settingsData, SettingsPatch } from './settings.openapi.js';
import { requestOrigin } from '../http/request-origin.js';

/** GET and PATCH /settings: the company's profile and operating settings. */
export function registerCompanySettingsRoutes(surface: Surface, { db, config }: AppContext): void {
  const platformCutoff = config.BOOKING_CANCEL_CUTOFF_MINUTES;

  staffRoute(surface, authorize, {
    ...docs.getCompanySettings,
    method: 'get',
    path: '/settings',
    handler: async (ctx, staff) => {
      ok(ctx, settingsData(await readCompanySettings(db, staff.companyId), platformCutoff));
    },
  });

  staffRoute(surface, managerWrite, {
    ...docs.updateCompanySettings,
    method: 'patch',
    path: '/settings',
    body: SettingsPatch,
    errorCode: settingsErrorCode,
    handler: async (ctx, staff, { body }) => {
      const saved = await saveCompanySettings(
        db,
        {
          companyId: staff.companyId,
          change: body,
          staffUserId: staff.staffUserId,
          actor: actingMember(staff, MANAGEMENT_ROLES),
        },
        requestOrigin(ctx),
      );
      ok(ctx, settingsData(saved, platformCutoff));
    },
  });
}
