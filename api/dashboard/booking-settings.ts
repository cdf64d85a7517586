import { readBookingSettings } from '../../db/queries/booking-settings.js';
import { saveBookingSettings } from '../../db/writes/booking-settings.js';
import type { AppContext } from '../app.js';
import type { Surface } from '../http/route.js';
import { errorResponses } from '../http/schemas.js';
import {
  READ_DESCRIPTION,
  SAVE_DESCRIPTION,
  SettingsBody,
  settingsData,
  settingsErrorCode,
  SettingsResponse,
} from './booking-settings.openapi.js';
import {
  authorize,
  MANAGEMENT_ROLES,
  requireActiveCompany,
  requireRole,
  requireVerifiedCompany,
} from './guards.js';

/** GET and PUT /settings/booking-confirmation. */
export function registerBookingSettingsRoutes(surface: Surface, { db }: AppContext): void {
  surface.route({
    method: 'get',
    path: '/settings/booking-confirmation',
    operationId: 'getBookingConfirmationSettings',
    summary: "The company's booking confirmation settings",
    description: READ_DESCRIPTION,
    tags: ['Dashboard: settings'],
    security: 'companyStaff',
    responses: {
      200: { description: 'The settings in force', schema: SettingsResponse },
      ...errorResponses(401),
    },
    handler: async (ctx) => {
      const staff = authorize(ctx);
      ctx.body = { success: true, data: settingsData(await readBookingSettings(db.pool, staff.companyId)) };
    },
  });

  surface.route({
    method: 'put',
    path: '/settings/booking-confirmation',
    operationId: 'putBookingConfirmationSettings',
    summary: "Set the company's booking confirmation settings",
    description: SAVE_DESCRIPTION,
    tags: ['Dashboard: settings'],
    security: 'companyStaff',
    body: SettingsBody,
    errorCode: settingsErrorCode,
    responses: {
      200: { description: 'The saved settings', schema: SettingsResponse },
      ...errorResponses(400, 401, 403),
    },
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
        { ip: ctx.ip, requestId: ctx.state.requestId },
      );
      ctx.body = { success: true, data: settingsData(saved) };
    },
  });
}
