import type { AppContext } from '../app.js';
import type { Surface } from '../http/route.js';
import { registerCustomerAuthRoutes } from './auth.js';
import { registerCatalogueRoutes } from './catalogue.js';
import { registerEmailAuthRoutes } from './email-auth.js';
import { registerFavoriteRoutes } from './favorites.js';
import { registerIdpRoutes } from './idp.js';
import { registerJourneyHoldRoutes } from './journey-holds.js';
import { registerJourneyRoutes } from './journeys.js';
import { registerTripRoutes } from './trips.js';

/** Customer surface (/api). Each feature module adds its routes here. */
export function registerCustomerRoutes(surface: Surface, context: AppContext): void {
  registerCustomerAuthRoutes(surface, context);
  registerCatalogueRoutes(surface, context);
  registerJourneyRoutes(surface, context);
  registerJourneyHoldRoutes(surface, context);
  registerTripRoutes(surface, context);
  registerEmailAuthRoutes(surface, context);
  registerFavoriteRoutes(surface, context);
  registerIdpRoutes(surface, context);
}
