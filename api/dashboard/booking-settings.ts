import { readBookingSettings } from '../../db/queries/booking-settings.js';
import { saveBookingSettings } from '../../db/writes/booking-settings.js';
import type { AppContext } from '../app.js';
import { ok } from '../http/respond.js';
import type { Surface } from '../http/route.js';
import { docs, SettingsBody, settingsData, settingsErrorCode } from './booking-settings.openapi.js';
import {
  actingMember,
  allow,
  authorize,
  MANAGEMENT_ROLES,
  requireActiveCompany,
  requireRole,
  requireVerifiedCompany,
} from './guards.js';
import { staffRoute } from './staff-route.js';
import { requestOrigin } from '../http/request-origin.js';

/**
 * Who may change the settings: OWNER or ADMIN of an active, verified company. The guard runs before
 * the body is read (staffRoute): another role or an unverified company gets its 403 whatever it sends.
 */
const settingsManager = allow(requireRole(...MANAGEMENT_ROLES), requireActiveCompany, requireVerifiedCompany);

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

  staffRoute(surface, settingsManager, {
    ...docs.putBookingConfirmationSettings,
    method: 'put',
    path: '/settings/booking-confirmation',
    body: SettingsBody,
    errorCode: settingsErrorCode,
    handler: async (ctx, staff, { body }) => {
      const saved = await saveBookingSettings(
        db,
        {
          companyId: staff.companyId,
          settings: body,
          staffUserId: staff.staffUserId,
          actor: actingMember(staff, MANAGEMENT_ROLES),
        },
        requestOrigin(ctx),
      );
      ok(ctx, settingsData(saved));
    },
  });
}
