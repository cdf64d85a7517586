import type { AppContext } from '../app.js';
import { Refusal } from '../http/errors.js';
import type { Surface } from '../http/route.js';
import { docs, WebhookParams } from './payment-webhook.openapi.js';

/**
 * The payment provider webhook. No provider contract exists yet, so the route assumes no payload
 * format and no signature scheme: it never reads the body (the JSON body reader skips it) and
 * changes no data. PAYMENT_WEBHOOK_MODE=disabled (production's default) registers nothing, so every
 * method answers exactly as on an unknown route (no 405 with Allow, no OPTIONS answer, not in the
 * document).
 */
export function registerPaymentWebhookRoutes(surface: Surface, { config }: AppContext): void {
  if (config.PAYMENT_WEBHOOK_MODE === 'disabled') return;
  surface.route({
    ...docs.paymentProviderWebhook,
    method: 'post',
    path: '/payments/webhook/{provider}',
    security: 'public',
    csrf: false,
    unreadBody: true,
    params: WebhookParams,
    handler: async () => {
      throw new Refusal(
        501,
        'OFFICIAL_CONTRACT_REQUIRED',
        'Payment provider notifications are not accepted until an official provider contract exists',
      );
    },
  });
}
