import type { AppContext } from '../app.js';
import { Refusal } from '../http/errors.js';
import type { Surface } from '../http/route.js';
import { docs, WebhookParams } from './payment-webhook.openapi.js';

/**
 * The payment provider webhook. No provider contract exists yet, so the route assumes no payload
 * format and no signature scheme: it never reads the body (the JSON body reader skips it) and
 * changes no data. PAYMENT_WEBHOOK_MODE=disabled answers exactly as an unknown route does.
 */
export function registerPaymentWebhookRoutes(surface: Surface, { config }: AppContext): void {
  surface.route({
    ...docs.paymentProviderWebhook,
    method: 'post',
    path: '/payments/webhook/{provider}',
    security: 'public',
    csrf: false,
    unreadBody: true,
    params: WebhookParams,
    handler: async () => {
      if (config.PAYMENT_WEBHOOK_MODE === 'disabled') throw new Refusal(404, 'NOT_FOUND', 'No such route');
      throw new Refusal(
        501,
        'OFFICIAL_CONTRACT_REQUIRED',
        'Payment provider notifications are not accepted until an official provider contract exists',
      );
    },
  });
}
