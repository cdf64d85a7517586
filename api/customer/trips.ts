import type { AppContext } from '../app.js';
import type { Surface } from '../http/route.js';

export function registerTripRoutes(_surface: Surface, _context: AppContext): void {}
