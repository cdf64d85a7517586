import type { AppContext } from '../app.js';
import type { Surface } from '../http/route.js';

export function registerJourneyRoutes(_surface: Surface, _context: AppContext): void {}
