import type { AppContext } from '../app.js';
import type { Surface } from '../http/route.js';
import { registerStaffAuthRoutes } from './auth.js';
import { registerBookingDecisionRoutes } from './booking-decisions.js';
import { registerBookingRoutes } from './bookings.js';
import { registerBookingSettingsRoutes } from './booking-settings.js';
import { registerCashShiftRoutes } from './cash-shifts.js';
import { registerDashboardDocumentShareRoutes } from './document-shares.js';
import { registerPaymentRoutes } from './payments.js';
import { registerInsightRoutes } from './insight.js';
import { registerTeamRoutes } from './team.js';

/** Company dashboard surface (/dashboard/api). Each feature module adds its routes here. */
export function registerDashboardRoutes(surface: Surface, context: AppContext): void {
  registerStaffAuthRoutes(surface, context);
  registerTeamRoutes(surface, context);
  registerBookingSettingsRoutes(surface, context);
  registerBookingRoutes(surface, context);
  registerBookingDecisionRoutes(surface, context);
  registerDashboardDocumentShareRoutes(surface, context);
  // Cash shifts first: /payments/{id} would otherwise answer /payments/cash-shifts.
  registerCashShiftRoutes(surface, context);
  registerPaymentRoutes(surface, context);
  registerInsightRoutes(surface, context);
}
