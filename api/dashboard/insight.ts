import type { AppContext } from '../app.js';
import type { Surface } from '../http/route.js';
import { registerAnalyticsRoutes } from './analytics.js';
import { registerLoyaltyProgrammeRoutes } from './loyalty.js';
import { registerReportRoutes } from './reports.js';
import { registerCompanySettingsRoutes } from './settings.js';

/** Company insight and programme (issue 15): settings, loyalty programme, reports and analytics. */
export function registerInsightRoutes(surface: Surface, context: AppContext): void {
  registerCompanySettingsRoutes(surface, context);
  registerLoyaltyProgrammeRoutes(surface, context);
  registerAnalyticsRoutes(surface, context);
  registerReportRoutes(surface, context);
}
