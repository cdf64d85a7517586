import type { AppContext } from '../app.js';
import type { Surface } from '../http/route.js';

/** Customer surface (/api). Each feature module adds its routes here. */
export function registerCustomerRoutes(surface: Surface, context: AppContext): void {
  void surface;
  void context;
}
