import type { AppContext } from '../app.js';
import type { Surface } from '../http/route.js';
import { registerDriverAuthRoutes } from './auth.js';
import { registerCredentialRoutes } from './credentials.js';
import { registerDriverTripRoutes } from './trips.js';

/** Driver app surface (/driver/api). Each feature module adds its routes here. */
export function registerDriverRoutes(surface: Surface, context: AppContext): void {
  registerDriverAuthRoutes(surface, context);
  registerCredentialRoutes(surface, context);
  registerDriverTripRoutes(surface, context);
}
