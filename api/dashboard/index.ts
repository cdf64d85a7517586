import type { AppContext } from '../app.js';
import type { Surface } from '../http/route.js';
import { registerApiKeyRoutes } from './api-keys.js';
import { registerStaffAuthRoutes } from './auth.js';
import { registerBookingDecisionRoutes } from './booking-decisions.js';
import { registerBookingRoutes } from './bookings.js';
import { registerBookingSettingsRoutes } from './booking-settings.js';
import { registerCompanyWarningRoutes } from './company-warnings.js';
import { registerCashShiftRoutes } from './cash-shifts.js';
import { registerDispatchRoutes } from './dispatch.js';
import { registerDashboardDocumentShareRoutes } from './document-shares.js';
import { registerFleetRoutes } from './fleet.js';
import { registerNetworkRoutes } from './network.js';
import { registerPaymentRoutes } from './payments.js';
import { registerInsightRoutes } from './insight.js';
import { registerTeamRoutes } from './team.js';
import { registerTripPlanningRoutes } from './trip-planning.js';
import { registerTripScheduleRoutes } from './trip-schedules.js';
import { registerTrackingRoutes } from './tracking.js';
import { registerTripCommandRoutes } from './trip-commands.js';

/** Company dashboard surface (/dashboard/api). Each feature module adds its routes here. */
export function registerDashboardRoutes(surface: Surface, context: AppContext): void {
  registerStaffAuthRoutes(surface, context);
  registerTeamRoutes(surface, context);
  registerBookingSettingsRoutes(surface, context);
  registerBookingRoutes(surface, context);
  registerBookingDecisionRoutes(surface, context);
  registerDashboardDocumentShareRoutes(surface, context);
  registerCompanyWarningRoutes(surface, context);
  registerDispatchRoutes(surface, context);
  registerTripCommandRoutes(surface, context);
  registerTrackingRoutes(surface, context);
  registerApiKeyRoutes(surface, context);
  // Cash shifts first: /payments/{id} would otherwise answer /payments/cash-shifts.
  registerCashShiftRoutes(surface, context);
  registerPaymentRoutes(surface, context);
  registerFleetRoutes(surface, context);
  registerNetworkRoutes(surface, context);
  registerTripPlanningRoutes(surface, context);
  registerTripScheduleRoutes(surface, context);
  registerInsightRoutes(surface, context);
}
