import type { AppContext } from '../app.js';
import type { Surface } from '../http/route.js';
import { registerCredentialRoutes } from './credentials.js';

/** Driver app surface (/driver/api). Each feature module adds its routes here. */
export function registerDriverRoutes(surface: Surface, context: AppContext): void {
  registerCredentialRoutes(surface, context);
}
