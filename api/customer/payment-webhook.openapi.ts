import { z } from 'zod';
import { ErrorBody } from '../http/schemas.js';
import { taggedOperations } from '../http/operation-docs.js';

/** The OpenAPI side of the payment provider webhook (api/customer/payment-webhook.ts). */

export const WebhookParams = z
  .object({
    provider: z.string().meta({ description: 'name of the payment provider; every name answers alike' }),
  })
  .strict();

/** The docs of each route, in the order they are registered. */
export const docs = taggedOperations(['Payments'], {
  paymentProviderWebhook: {
    summary: 'Payment provider webhook (not connected)',
    description:
      'SPEC leaves the path open; this is it. Online payment is unavailable: the route neither reads the payload or the query string nor ' +
      'changes data, whatever their size, type or content. PAYMENT_WEBHOOK_MODE=development (the default outside production) → 501 ' +
      'OFFICIAL_CONTRACT_REQUIRED; disabled → 404 NOT_FOUND, as for a route that does not exist. No signature scheme is ' +
      'assumed and no credential is read.',
    responses: {
      404: {
        description: 'PAYMENT_WEBHOOK_MODE=disabled',
        schema: ErrorBody,
      },
      501: {
        description: 'OFFICIAL_CONTRACT_REQUIRED (development mode)',
        schema: ErrorBody,
      },
    },
  },
});
