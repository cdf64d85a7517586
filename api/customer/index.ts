import type { AppContext } from '../app.js';
import type { Surface } from '../http/route.js';
import { registerCustomerAuthRoutes } from './auth.js';
import { registerBookingChangeRoutes } from './booking-changes.js';
import { registerBookingReadRoutes } from './booking-reads.js';
import { registerBookingCreateRoutes } from './bookings.js';
import { registerCatalogueRoutes } from './catalogue.js';
import { registerDocumentShareRoutes } from './document-shares.js';
import { registerDocumentRoutes } from './documents.js';
import { registerEmailAuthRoutes } from './email-auth.js';
import { registerFavoriteRoutes } from './favorites.js';
import { registerIdpRoutes } from './idp.js';
import { registerJourneyHoldRoutes } from './journey-holds.js';
import { journeySearchLimit, registerJourneyRoutes } from './journeys.js';
import { registerLoyaltyRoutes } from './loyalty.js';
import { registerPaymentWebhookRoutes } from './payment-webhook.js';
import { registerPaymentRoutes } from './payments.js';
import { registerSeatLockRoutes } from './seat-locks.js';
import { registerSupportTicketRoutes } from './support-tickets.js';
import { registerTicketRoutes } from './tickets.js';
import { registerTripRoutes } from './trips.js';
import { registerWaitlistRoutes } from './waitlist.js';
import { registerWebhookRoutes } from './webhooks.js';

/** Customer surface (/api). Each feature module adds its routes here. */
export function registerCustomerRoutes(surface: Surface, context: AppContext): void {
  registerCustomerAuthRoutes(surface, context);
  registerCatalogueRoutes(surface, context);
  // One per-IP budget for the journey search and its legacy form, GET /trips.
  const searchLimit = journeySearchLimit(context);
  registerJourneyRoutes(surface, context, searchLimit);
  registerJourneyHoldRoutes(surface, context);
  registerTripRoutes(surface, context, searchLimit);
  registerEmailAuthRoutes(surface, context);
  registerFavoriteRoutes(surface, context);
  registerIdpRoutes(surface, context);
  registerPaymentRoutes(surface, context);
  registerPaymentWebhookRoutes(surface, context);
  registerSeatLockRoutes(surface, context);
  registerBookingCreateRoutes(surface, context);
  registerTicketRoutes(surface, context);
  registerDocumentRoutes(surface, context);
  registerBookingReadRoutes(surface, context);
  registerBookingChangeRoutes(surface, context);
  registerDocumentShareRoutes(surface, context);
  registerLoyaltyRoutes(surface, context);
  registerWaitlistRoutes(surface, context);
  registerSupportTicketRoutes(surface, context);
  registerWebhookRoutes(surface, context);
}
