import { readBookingSettings } from '../../db/queries/booking-settings.js';
import { saveBookingSettings } from '../../db/writes/booking-settings.js';
import type { AppContext } from '../app.js';
import { ok } from '../http/respond.js';
import type { Surface } from '../http/route.js';
import { docs, SettingsBody, settingsData, settingsErrorCode } from './booking-settings.openapi.js';
import {
  authorize,
  MANAGEMENT_ROLES,
  requireActiveCompany,
  requireRole,
  requireVerifiedCompany,
} from './guards.js';
import { staffRoute } from './staff-route.js';
import { requestOrigin } from '../http/request-origin.js';

/** GET and PUT /settings/booking-confirmation. */
export function registerBookingSettingsRoutes(surface: Surface, { db }: AppContext): void {
  staffRoute(surface, authorize, {
    ...docs.getBookingConfirmationSettings,
    method: 'get',
    path: '/settings/booking-confirmation',
    handler: async (ctx, staff) => {
      ok(ctx, settingsData(await readBookingSettings(db.pool, staff.companyId)));
    },
  });

  surface.route({
    ...docs.putBookingConfirmationSettings,
    method: 'put',
    path: '/settings/booking-confirmation',
    security: 'companyStaff',
    body: SettingsBody,
    errorCode: settingsErrorCode,
    handler: async (ctx, { body }) => {
      const staff = authorize(
        ctx,
        requireRole(...MANAGEMENT_ROLES),
        requireActiveCompany,
        requireVerifiedCompany,
      );
      const saved = await saveBookingSettings(
        db,
        { companyId: staff.companyId, settings: body, staffUserId: staff.staffUserId },
        requestOrigin(ctx),
      );
      ok(ctx, settingsData(saved));
    },
  });
}
