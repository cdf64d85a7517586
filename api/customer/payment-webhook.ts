import { z } from 'zod';
import type { AppContext } from '../app.js';
import { Refusal } from '../http/errors.js';
import type { Surface } from '../http/route.js';
import { ErrorBody } from '../http/schemas.js';

const WebhookParams = z
  .object({
    provider: z.string().meta({ description: 'name of the payment provider; every name answers alike' }),
  })
  .strict();

/**
 * The payment provider webhook. No provider contract exists yet, so the route assumes no payload
 * format and no signature scheme: it never reads the body (the JSON body reader skips it) and
 * changes no data. PAYMENT_WEBHOOK_MODE=disabled answers exactly as an unknown route does.
 */
export function registerPaymentWebhookRoutes(surface: Surface, { config }: AppContext): void {
  surface.route({
    method: 'post',
    path: '/payments/webhook/{provider}',
    operationId: 'paymentProviderWebhook',
    summary: 'Payment provider webhook (not connected)',
    description:
      'SPEC leaves the path open; this is it. Online payment is unavailable: the route neither reads the payload nor ' +
      'changes data, whatever its size, type or content. PAYMENT_WEBHOOK_MODE=development (the default) → 501 ' +
      'OFFICIAL_CONTRACT_REQUIRED; disabled → 404 NOT_FOUND, as for a route that does not exist. No signature scheme is ' +
      'assumed and no credential is read.',
    tags: ['Payments'],
    security: 'public',
    csrf: false,
    unreadBody: true,
    params: WebhookParams,
    responses: {
      404: { description: 'PAYMENT_WEBHOOK_MODE=disabled', schema: ErrorBody },
      501: { description: 'OFFICIAL_CONTRACT_REQUIRED (development mode)', schema: ErrorBody },
    },
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
