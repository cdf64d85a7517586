import type { AppContext } from '../app.js';
import type { Surface } from '../http/route.js';

export function registerCatalogueRoutes(_surface: Surface, _context: AppContext): void {}
