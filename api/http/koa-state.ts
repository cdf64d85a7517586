import type { InventoryScope } from '../../domain/inventory-scope.js';
import type { TravellerIdentity } from '../auth/traveller-token.js';

declare module 'koa' {
  interface DefaultState {
    requestId: string;
    errorCode?: string;
    /** The signed-in traveller, or null for a guest (customer surface). */
    traveller: (TravellerIdentity & { via: 'bearer' | 'cookie' }) | null;
    /** Inventory scope of the caller; PRODUCTION for guests. */
    scope: InventoryScope;
  }
  interface Request {
    body?: unknown;
  }
}
