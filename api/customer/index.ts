import type { AppContext } from '../app.js';
import type { Surface } from '../http/route.js';
import { registerCatalogueRoutes } from './catalogue.js';
import { registerJourneyRoutes } from './journeys.js';
import { registerTripRoutes } from './trips.js';

/** Customer surface (/api). Each feature module adds its routes here. */
export function registerCustomerRoutes(surface: Surface, context: AppContext): void {
  registerCatalogueRoutes(surface, context);
  registerJourneyRoutes(surface, context);
  registerTripRoutes(surface, context);
}
